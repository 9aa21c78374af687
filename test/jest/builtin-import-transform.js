/**
 * OpenTelemetry's OTLP/HTTP transport loads `http`/`https` with a dynamic `import()`, which Jest's VM
 * refuses without --experimental-vm-modules (Node itself, tsx and Lambda run it as is). Under Jest only,
 * those imports of Node built-ins become `Promise.resolve(require(…))`.
 */
module.exports = {
  process(source) {
    return { code: source.replace(/\bimport\(("(?:node:)?https?")\)/g, 'Promise.resolve(require($1))') };
  },
};
