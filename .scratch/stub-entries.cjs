const fs = require('fs');
const stubs = new Set(['api'].map((n) => `/work/main/lambdas/${n}/index.ts`));
const exists = fs.existsSync;
const read = fs.readFileSync;
fs.existsSync = (p) => (stubs.has(String(p)) ? true : exists(p));
fs.readFileSync = (p, o) => (stubs.has(String(p)) && !exists(p) ? 'export const handler = async () => ({});' : read(p, o));
