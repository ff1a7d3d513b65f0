// cancel.mjs: a client no one here wrote (the official TypeScript SDK) starts
// helix mcp serve over stdio and cancels calls. For each call in CALLS (a
// JSON list of {name, arguments}) it asks for progress and, at the second
// progress notification, aborts: the SDK then sends notifications/cancelled.
// Prints one JSON line per call: {name, progress, outcome}.
// Environment: MCP_SDK (the package's directory), HELIX_ARGV (the server's
// argv, JSON), HELIX_ENV (its environment, JSON), CALLS.
import { pathToFileURL } from "node:url";

const sdk = (p) => import(pathToFileURL(process.env.MCP_SDK + "/dist/esm/" + p).href);
const { Client } = await sdk("client/index.js");
const { StdioClientTransport } = await sdk("client/stdio.js");

const [command, ...args] = JSON.parse(process.env.HELIX_ARGV);
const transport = new StdioClientTransport({ command, args, env: JSON.parse(process.env.HELIX_ENV), stderr: "inherit" });
const client = new Client({ name: "node-cancel", version: "1.0.0" });
await client.connect(transport);
for (const call of JSON.parse(process.env.CALLS)) {
  const ac = new AbortController();
  const seen = [];
  let outcome;
  try {
    await client.callTool(call, undefined, {
      signal: ac.signal,
      timeout: 120000,
      onprogress: (p) => {
        seen.push(p.message);
        if (seen.length === 2) ac.abort(new Error("the test cancels"));
      },
    });
    outcome = "completed";
  } catch (e) {
    outcome = "cancelled: " + (e && e.message);
  }
  console.log(JSON.stringify({ name: call.name, progress: seen, outcome }));
}
// Give the server a moment to see the last notification before stdin closes.
await new Promise((r) => setTimeout(r, 1000));
await client.close();
