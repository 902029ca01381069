// The REST routes of the operation table (generated/operations.ts), matched
// as Koa's router matched them when it held them: path-to-regexp's patterns,
// any case, a trailing slash or not, path parameters percent-decoded (left
// as sent when that fails), and a GET route taking HEAD too. Where the path
// is a route's but the method none of its, the methods it takes, in the
// router's order, for the Allow header.
import { pathToRegexp } from 'path-to-regexp';
import { operations, type Operation } from '../../../generated/operations.js';

interface Route {
  operation: Operation;
  /** `/workspace/handoffs/:handoff_id`: how the request log and the metrics name the route. */
  template: string;
  methods: readonly string[];
  pattern: RegExp;
  params: readonly string[];
}

export type RouteMatch = { operation: Operation; template: string; params: Record<string, string> } | { allow: string };

const routes: Route[] = (Object.values(operations) as Operation[]).map((operation) => {
  const template = operation.rest.path.replace(/\{(\w+)\}/g, ':$1');
  const { regexp, keys } = pathToRegexp(template, { sensitive: false, trailing: true, end: true });
  const method = operation.rest.method;
  return {
    operation,
    template,
    methods: method === 'GET' ? ['HEAD', 'GET'] : [method],
    pattern: regexp,
    params: keys.map((key) => key.name),
  };
});

/** Every route is under /workspace: any other path is answered elsewhere without a look at the table. */
const UNDER_WORKSPACE = /^\/workspace\//i;

function decoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The route of `method` on `path` (the URL's path, query aside); `allow` when only the method is wrong; else null. */
export function matchRoute(method: string, path: string): RouteMatch | null {
  if (!UNDER_WORKSPACE.test(path)) return null;
  let allowed: Set<string> | null = null;
  for (const route of routes) {
    const captures = route.pattern.exec(path);
    if (captures === null) continue;
    if (!route.methods.includes(method)) {
      allowed ??= new Set();
      for (const name of route.methods) allowed.add(name);
      continue;
    }
    const params: Record<string, string> = {};
    route.params.forEach((name, i) => {
      params[name] = decoded(captures[i + 1]!);
    });
    return { operation: route.operation, template: route.template, params };
  }
  return allowed === null ? null : { allow: [...allowed].join(', ') };
}
