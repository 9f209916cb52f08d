// Anthropic Messages API (streamed and not), as Claude Code calls it: POST /v1/messages.
// Tool results come back as `tool_result` blocks of user messages.
import { json, sse, contentText } from "./server.mjs";

let msgSeq = 0;

export async function handle({ req, res, url, body, conversation }) {
  if (req.method === "POST" && url.pathname.endsWith("/messages/count_tokens")) {
    json(res, 200, { input_tokens: 1000 });
    return { kind: "count_tokens" };
  }
  if (!(req.method === "POST" && url.pathname.endsWith("/messages"))) {
    json(res, 404, { type: "error", error: { type: "not_found_error", message: "stand-in: not here" } });
    return { kind: "404" };
  }
  const tools = (body?.tools ?? []).filter((t) => t?.name).map((t) => ({ name: t.name }));
  const results = [];
  for (const m of body?.messages ?? []) {
    if (m.role !== "user" || !Array.isArray(m.content)) continue;
    for (const b of m.content) {
      if (b?.type === "tool_result") {
        results.push({ callId: b.tool_use_id, text: contentText(b.content), raw: b });
      }
    }
  }
  const action = conversation.next({ tools, results });
  const model = body?.model ?? "stand-in";
  const id = `msg_standin_${++msgSeq}`;
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  const block =
    action.kind === "tool"
      ? { type: "tool_use", id: action.callId, name: action.name, input: action.args }
      : { type: "text", text: action.text };
  const stop = action.kind === "tool" ? "tool_use" : "end_turn";
  if (!body?.stream) {
    json(res, 200, {
      id,
      type: "message",
      role: "assistant",
      model,
      content: [block],
      stop_reason: stop,
      stop_sequence: null,
      usage,
    });
    return action;
  }
  const s = sse(res);
  s.event("message_start", {
    type: "message_start",
    message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage },
  });
  if (action.kind === "tool") {
    s.event("content_block_start", {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: action.callId, name: action.name, input: {} },
    });
    s.event("content_block_delta", {
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: JSON.stringify(action.args) },
    });
  } else {
    s.event("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    s.event("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: action.text } });
  }
  s.event("content_block_stop", { type: "content_block_stop", index: 0 });
  s.event("message_delta", { type: "message_delta", delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 10 } });
  s.event("message_stop", { type: "message_stop" });
  s.end();
  return action;
}
