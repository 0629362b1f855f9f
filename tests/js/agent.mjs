// A tool-calling agent in another language: Node's built-in fetch, no packages.
// Usage: OPENAI_BASE_URL=http://127.0.0.1:8787/v1 OPENAI_API_KEY=... [MODEL=...] node agent.mjs "question" [stream]
const base = process.env.OPENAI_BASE_URL;
const key = process.env.OPENAI_API_KEY;
const [question, mode] = process.argv.slice(2);
const stream = mode === "stream";
const tools = [{
  type: "function",
  function: {
    name: "get_weather",
    description: "Current weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
}];

async function ask(messages) {
  const response = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: process.env.MODEL ?? "gpt-4.1-mini", messages, tools, stream }),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  if (!stream) return (await response.json()).choices[0].message;
  // Server-sent events: content pieces joined, call fragments gathered by index.
  const message = { role: "assistant", content: "", tool_calls: [] };
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body) {
    buffer += decoder.decode(chunk, { stream: true });
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of event.split("\n")) {
        if (!line.startsWith("data: ") || line === "data: [DONE]") continue;
        const delta = JSON.parse(line.slice(6)).choices[0]?.delta ?? {};
        if (delta.content) message.content += delta.content;
        for (const part of delta.tool_calls ?? []) {
          const call = (message.tool_calls[part.index] ??= {
            id: "", type: "function", function: { name: "", arguments: "" },
          });
          if (part.id) call.id = part.id;
          if (part.function?.name) call.function.name += part.function.name;
          if (part.function?.arguments) call.function.arguments += part.function.arguments;
        }
      }
    }
  }
  if (!message.tool_calls.length) delete message.tool_calls;
  return message;
}

const messages = [{ role: "user", content: question }];
for (let step = 0; step < 4; step++) {
  const message = await ask(messages);
  messages.push(message);
  if (!message.tool_calls?.length) break;
  for (const call of message.tool_calls) {
    const { city } = JSON.parse(call.function.arguments);
    const result = JSON.stringify({ city, temp_c: 20, condition: "晴" });
    messages.push({ role: "tool", tool_call_id: call.id, content: result });
  }
}
console.log(JSON.stringify(messages.at(-1)));
