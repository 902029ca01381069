// import.meta.url in ce serve's CommonJS bundle (scripts/build.js defines it
// as this): the bundle file's URL, as the ES module bundles have it.
export const importMetaUrl = require('node:url').pathToFileURL(__filename).href;
