// The uids of deleted Monitors by the key they had, from their DELETED events until the key's next pass deletes
// their hub monitors (ADR 0065). Kept by key, not handed to a queue of their own, so that a Monitor deleted and
// re-created under the same name has its predecessor's hub monitor deleted before its own is put (the hub refuses a
// second monitor of the same name in a project and environment).
import type { DepartedMonitors, MonitorKey } from './reconcile-monitor.js';

export function createDepartedMonitors(): DepartedMonitors & {
  record(key: MonitorKey, uid: string): void;
  clear(): void;
} {
  const byKey = new Map<string, Set<string>>();
  const idOf = (key: MonitorKey) => `${key.namespace}/${key.name}`;
  const add = (key: MonitorKey, uids: string[]) => {
    const set = byKey.get(idOf(key)) ?? new Set<string>();
    for (const uid of uids) set.add(uid);
    byKey.set(idOf(key), set);
  };
  return {
    record: (key, uid) => add(key, [uid]),
    take(key) {
      const uids = [...(byKey.get(idOf(key)) ?? [])];
      byKey.delete(idOf(key));
      return uids;
    },
    restore: add,
    clear: () => byKey.clear(),
  };
}
