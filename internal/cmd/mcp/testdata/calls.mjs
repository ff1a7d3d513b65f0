// calls.mjs: a client no one here wrote (the official TypeScript SDK) starts
// helix mcp serve over stdio and makes calls. For each call in CALLS (a JSON
// list of {name, arguments}) it prints one JSON line: {name, result} or
// {name, error: {code, message}}. With CLOSE_AFTER_MS set, the last call is
// not awaited: the client closes (ending the server's stdin, as the SDK
// does) once the file CLOSE_WHEN_FILE exists, and prints {name, closed}.
// With LIST_TOOLS set, the first line is {tools}: what tools/list answered.
// Environment: MCP_SDK (the package's directory), HELIX_ARGV (the server's
// argv, JSON), HELIX_ENV (its environment, JSON), CALLS, CLOSE_WHEN_FILE.
import { existsSync } from "node:fs";
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(process.env.MCP_SDK + "/dist/esm/" + p).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const [command, ...args] = JSON.parse(process.env.HELIX_ARGV);
const transport = new StdioClientTransport({ command, args, env: JSON.parse(process.env.HELIX_ENV), stderr: "inherit" });
const client = new Client({ name: "node-calls", version: "1.0.0" });
await client.connect(transport);
if (process.env.LIST_TOOLS) {
  const { tools } = await client.listTools();
  console.log(JSON.stringify({ tools }));
}
const calls = JSON.parse(process.env.CALLS);
const closeWhen = process.env.CLOSE_WHEN_FILE;
for (const [i, call] of calls.entries()) {
  if (closeWhen && i === calls.length - 1) {
    client.callTool(call, undefined, { timeout: 120000 }).catch(() => {});
    while (!existsSync(closeWhen)) await new Promise((r) => setTimeout(r, 50));
    await client.close();
    console.log(JSON.stringify({ name: call.name, closed: true }));
    process.exit(0);
  }
  try {
    const result = await client.callTool(call, undefined, { timeout: 120000 });
    console.log(JSON.stringify({ name: call.name, result }));
  } catch (e) {
    console.log(JSON.stringify({ name: call.name, error: { code: e.code, message: e.message } }));
  }
}
await client.close();
