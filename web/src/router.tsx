import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** Moves to a console path without a page load; the pages listen for popstate. */
export function navigate(path: string, replace = false): void {
  if (replace) history.replaceState(null, '', path);
  else history.pushState(null, '', path);
  dispatchEvent(new PopStateEvent('popstate'));
}

export function useLocation(): URL {
  const [href, setHref] = useState(location.href);
  useEffect(() => {
    const update = () => setHref(location.href);
    addEventListener('popstate', update);
    return () => removeEventListener('popstate', update);
  }, []);
  return new URL(href);
}

type LinkProps = JSX.HTMLAttributes<HTMLAnchorElement> & { href: string; children: ComponentChildren };

/** A real link (keyboard, middle click, copy address all work) that navigates in place on a plain click. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
