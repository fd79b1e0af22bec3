// Which hub projects the Monitors of a namespace may write, so one team's namespace cannot put monitors into
// another team's project. One installation acts in the hub with one API key, so the hub cannot tell namespaces
// apart: the operator is the only place this can be enforced.
//
// OPERATOR_NAMESPACE_PROJECTS: `namespace=project,project;namespace=project`, with `*` as a namespace (any namespace
// not listed) or as a project (any project). A namespace not covered may use only the project named after it.
// A Monitor without `spec.project` goes to the first project listed for its namespace (its own name for `*`).

export interface ProjectPolicy {
  /** The project a Monitor of this namespace without `spec.project` belongs to. */
  defaultProject(namespace: string): string;
  /** Why the namespace may not write the project, or undefined when it may. */
  refusal(namespace: string, project: string): string | undefined;
}

const ANY = '*';

class InvalidProjectMappingError extends Error {
  constructor(readonly entry: string) {
    super(`"${entry}" is not namespace=project[,project...]`);
    this.name = new.target.name;
  }
}

export function parseProjectPolicy(mapping: string): ProjectPolicy {
  const allowed = new Map<string, string[]>();
  for (const entry of mapping.split(';').map((each) => each.trim())) {
    if (entry === '') continue;
    const [namespace, projects, extra] = entry.split('=').map((part) => part.trim());
    const list = (projects ?? '')
      .split(',')
      .map((project) => project.trim())
      .filter((project) => project !== '');
    if (!namespace || extra !== undefined || list.length === 0) throw new InvalidProjectMappingError(entry);
    allowed.set(namespace, [...(allowed.get(namespace) ?? []), ...list]);
  }
  const projectsOf = (namespace: string) => allowed.get(namespace) ?? allowed.get(ANY) ?? [namespace];
  return {
    defaultProject(namespace) {
      const first = projectsOf(namespace)[0];
      return first === undefined || first === ANY ? namespace : first;
    },
    refusal(namespace, project) {
      const projects = projectsOf(namespace);
      if (projects.includes(ANY) || projects.includes(project)) return undefined;
      return (
        `namespace ${namespace} may not write project "${project}" (allowed: ${projects.join(', ')}); ` +
        'the operator’s OPERATOR_NAMESPACE_PROJECTS setting decides'
      );
    },
  };
}
