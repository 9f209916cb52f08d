// OpenAI Responses API, streamed, as Codex calls it (custom provider, wire_api = "responses"):
// POST /v1/responses. Tool results come back as `function_call_output` input items.
import { json, sse, contentText } from "./server.mjs";

let seq = 0;

// Codex lists MCP tools as functions, or as a namespace holding them.
function toolList(tools) {
  const out = [];
  for (const t of tools ?? []) {
    if (Array.isArray(t?.tools)) {
      for (const f of t.tools) if (f?.name) out.push({ name: f.name, namespace: t.name ?? t.namespace });
    } else if (t?.name) out.push({ name: t.name, namespace: t.namespace });
    else if (t?.function?.name) out.push({ name: t.function.name });
  }
  return out;
}

export async function handle({ req, res, url, body, conversation }) {
  if (req.method === "GET" && url.pathname.endsWith("/models")) {
    json(res, 200, { object: "list", data: [{ id: "stand-in", object: "model", owned_by: "stand-in" }], models: [] });
    return { kind: "models" };
  }
  if (!(req.method === "POST" && url.pathname.endsWith("/responses"))) {
    json(res, 404, { error: { message: "stand-in: not here" } });
    return { kind: "404" };
  }
  const results = [];
  for (const it of Array.isArray(body?.input) ? body.input : []) {
    if (it?.type === "function_call_output" || it?.type === "custom_tool_call_output") {
      const o = it.output;
      const text = typeof o === "string" ? o : Array.isArray(o) ? contentText(o) : o?.content ?? JSON.stringify(o);
      results.push({ callId: it.call_id, text, raw: it });
    }
  }
  const action = conversation.next({ tools: toolList(body?.tools), results });
  const id = `resp_standin_${++seq}`;
  const item =
    action.kind === "tool"
      ? {
          type: "function_call",
          id: `fc_standin_${seq}`,
          call_id: action.callId,
          name: action.name,
          ...(action.namespace ? { namespace: action.namespace } : {}),
          arguments: JSON.stringify(action.args),
          status: "completed",
        }
      : {
          type: "message",
          id: `msg_standin_${seq}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: action.text, annotations: [] }],
        };
  const usage = {
    input_tokens: 100,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 10,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 110,
  };
  const response = { id, object: "response", status: "completed", model: body?.model ?? "stand-in", output: [item], usage };
  if (body?.stream === false) {
    json(res, 200, response);
    return action;
  }
  const s = sse(res);
  s.event("response.created", { type: "response.created", response: { ...response, status: "in_progress", output: [] } });
  s.event("response.output_item.added", { type: "response.output_item.added", output_index: 0, item });
  if (action.kind === "text") {
    s.event("response.output_text.delta", {
      type: "response.output_text.delta",
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: action.text,
    });
  }
  s.event("response.output_item.done", { type: "response.output_item.done", output_index: 0, item });
  s.event("response.completed", { type: "response.completed", response });
  s.end();
  return action;
}
