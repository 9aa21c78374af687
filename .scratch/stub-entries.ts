// scratch only: pretend missing handler entries exist (no files are created in other people's folders)
/* eslint-disable */
const fs = require('fs');
const stubs = new Set(['api'].map((n) => `/work/main/lambdas/${n}/index.ts`));
const exists = fs.existsSync;
const read = fs.readFileSync;
fs.existsSync = (p: any) => (stubs.has(String(p)) ? true : exists(p));
fs.readFileSync = (p: any, o?: any) =>
  stubs.has(String(p)) && !exists(p) ? 'export const handler = async () => ({});' : read(p, o);
