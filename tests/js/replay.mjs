// Replay what threadlab wrote to the AI SDK's own client code, as a browser would receive it.
//
//   node replay.mjs <ai|ai7> <stream.sse> <messages.json> [<stream.sse> <messages.json> ...]
//
// The SSE goes through the HTTP chat transport's path: parseJsonEventStream with the SDK's
// uiMessageChunkSchema (a chunk the SDK would reject is reported), then readUIMessageStream,
// one assistant message per response, folded like useChat folds a continuation. The UIMessage[]
// goes through safeValidateUIMessages. Prints one {"messages", "chunkErrors", "valid"} per pair.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [sdkName, ...paths] = process.argv.slice(2);
const ai = await import(sdkName);
const require = createRequire(import.meta.url);
const sdkDir = dirname(require.resolve(`${sdkName}/package.json`));
const utilsEntry = require.resolve('@ai-sdk/provider-utils', { paths: [sdkDir] });
const { parseJsonEventStream } = await import(pathToFileURL(utilsEntry).href);

async function replay(ssePath, messagesPath) {
  const chunkErrors = [];
  const messages = [];
  for (const body of readFileSync(ssePath, 'utf8').split(/(?<=data: \[DONE\]\n\n)/).filter((s) => s.trim())) {
    const bytes = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(body));
        controller.close();
      },
    });
    const parsed = parseJsonEventStream({ stream: bytes, schema: ai.uiMessageChunkSchema });
    const chunks = parsed.pipeThrough(
      new TransformStream({
        transform(result, controller) {
          if (result.success) controller.enqueue(result.value);
          else chunkErrors.push(String(result.error?.message ?? result.error).slice(0, 300));
        },
      }),
    );
    const last = messages.at(-1);
    let message;
    for await (const snapshot of ai.readUIMessageStream({ message: last?.role === 'assistant' ? structuredClone(last) : undefined, stream: chunks, terminateOnError: false })) {
      message = snapshot;
    }
    if (!message) continue;
    if (last && last.id === message.id) messages[messages.length - 1] = structuredClone(message);
    else messages.push(structuredClone(message));
  }
  const validation = await ai.safeValidateUIMessages({ messages: JSON.parse(readFileSync(messagesPath, 'utf8')) });
  return { messages, chunkErrors, valid: validation.success, error: validation.success ? null : String(validation.error).slice(0, 500) };
}

const results = [];
for (let i = 0; i + 1 < paths.length; i += 2) results.push(await replay(paths[i], paths[i + 1]));
console.log(JSON.stringify(results));
