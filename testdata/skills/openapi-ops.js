// openapi-ops: the operations of an OpenAPI (or Swagger 2.0) document, sorted.
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function main(doc) {
  const ops = [];
  for (const [path, item] of Object.entries(doc.paths || {})) {
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const o = { method: method.toUpperCase(), path };
      if (op && op.operationId) o.operation_id = op.operationId;
      ops.push(o);
    }
  }
  ops.sort((a, b) => a.path < b.path ? -1 : a.path > b.path ? 1 : a.method < b.method ? -1 : a.method > b.method ? 1 : 0);
  console.log(ops.length + ' operations');
  return { count: ops.length, operations: ops };
}
