// The generated OpenAPI document as a module of its own, which Koa's app
// imports at the first request for it (/openapi.json, /docs). Built into a
// file of its own (dist/lazy/openapi-document.cjs, scripts/build.js): 200 KB
// that a room's start would otherwise compile.
export { default } from '../../generated/openapi.json' with { type: 'json' };
