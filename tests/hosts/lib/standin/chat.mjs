// OpenAI Chat Completions API (streamed and not), as opencode (`@ai-sdk/openai-compatible`)
// and Copilot CLI (offline provider mode) call it: POST /v1/chat/completions.
// Tool results come back as `role: "tool"` messages.
import { json, sse, contentText } from "./server.mjs";

let seq = 0;

export async function handle({ req, res, url, body, conversation }) {
  if (req.method === "GET" && url.pathname.endsWith("/models")) {
    json(res, 200, { object: "list", data: [{ id: "stand-in", object: "model", created: 0, owned_by: "stand-in" }] });
    return { kind: "models" };
  }
  if (!(req.method === "POST" && url.pathname.endsWith("/chat/completions"))) {
    json(res, 404, { error: { message: "stand-in: not here", type: "not_found" } });
    return { kind: "404" };
  }
  const tools = (body?.tools ?? []).map((t) => ({ name: t?.function?.name ?? t?.name })).filter((t) => t.name);
  const results = [];
  for (const m of body?.messages ?? []) {
    if (m?.role === "tool") results.push({ callId: m.tool_call_id, text: contentText(m.content), raw: m });
  }
  const action = conversation.next({ tools, results });
  const id = `chatcmpl-standin-${++seq}`;
  const created = Math.floor(Date.now() / 1000);
  const model = body?.model ?? "stand-in";
  const usage = { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 };
  const call = action.kind === "tool"
    ? { id: action.callId, type: "function", function: { name: action.name, arguments: JSON.stringify(action.args) } }
    : null;
  const finish = call ? "tool_calls" : "stop";
  if (!body?.stream) {
    json(res, 200, {
      id,
      object: "chat.completion",
      created,
      model,
      choices: [
        {
          index: 0,
          message: call ? { role: "assistant", content: null, tool_calls: [call] } : { role: "assistant", content: action.text },
          finish_reason: finish,
        },
      ],
      usage,
    });
    return action;
  }
  const s = sse(res);
  const chunk = (delta, finish_reason = null, extra = {}) =>
    s.event(null, { id, object: "chat.completion.chunk", created, model, choices: [{ index: 0, delta, finish_reason }], ...extra });
  chunk({ role: "assistant", content: "" });
  if (call) chunk({ tool_calls: [{ index: 0, ...call }] });
  else chunk({ content: action.text });
  chunk({}, finish);
  s.event(null, { id, object: "chat.completion.chunk", created, model, choices: [], usage });
  s.event(null, "[DONE]");
  s.end();
  return action;
}
