// Gemini API, as Gemini CLI calls it with GOOGLE_GEMINI_BASE_URL:
// POST /v1beta/models/M:streamGenerateContent?alt=sse, :generateContent, :countTokens.
// Tool results come back as `functionResponse` parts.
import { json, sse } from "./server.mjs";

// What the model is shown of a functionResponse: its `response` object, as the API serializes
// it; when it is only {output: "text"} (how Gemini CLI wraps a result), that text.
function responseText(fr) {
  const r = fr?.response;
  if (r && typeof r === "object") {
    const keys = Object.keys(r);
    if (keys.length === 1 && typeof r[keys[0]] === "string") return r[keys[0]];
    return JSON.stringify(r);
  }
  return typeof r === "string" ? r : JSON.stringify(r ?? null);
}

// A small value that fits a (Gemini-flavoured) JSON schema.
function sample(schema, key = "") {
  const type = String(schema?.type ?? "object").toLowerCase();
  if (schema?.enum?.length) return key === "next_speaker" && schema.enum.includes("user") ? "user" : schema.enum[0];
  if (type === "object") {
    const o = {};
    for (const [k, v] of Object.entries(schema?.properties ?? {})) o[k] = sample(v, k);
    return o;
  }
  if (type === "array") return [];
  if (type === "integer" || type === "number") return 1;
  if (type === "boolean") return false;
  return key === "next_speaker" ? "user" : "ok";
}

export async function handle({ req, res, url, body, conversation }) {
  const m = /\/models\/([^/:]+):(\w+)$/.exec(url.pathname);
  if (!m || req.method !== "POST") {
    json(res, 404, { error: { code: 404, message: "stand-in: not here", status: "NOT_FOUND" } });
    return { kind: "404" };
  }
  const [, model, method] = m;
  if (method === "countTokens") {
    json(res, 200, { totalTokens: 1000 });
    return { kind: "countTokens" };
  }
  if (method === "embedContent" || method === "batchEmbedContents") {
    json(res, 200, { embedding: { values: [0] }, embeddings: [{ values: [0] }] });
    return { kind: method };
  }
  const tools = [];
  for (const t of body?.tools ?? []) for (const f of t?.functionDeclarations ?? []) if (f?.name) tools.push({ name: f.name });
  const results = [];
  for (const c of body?.contents ?? []) {
    for (const p of c?.parts ?? []) {
      if (p?.functionResponse) results.push({ callId: p.functionResponse.id, text: responseText(p.functionResponse), raw: p.functionResponse });
    }
  }
  let action;
  const wantsJson = body?.generationConfig?.responseMimeType === "application/json";
  if (wantsJson && tools.length === 0) {
    // A side question with a JSON answer (model routing's complexity score, "who speaks
    // next"): a value of the schema asked for.
    const schema = body.generationConfig.responseJsonSchema ?? body.generationConfig.responseSchema;
    action = { kind: "text", text: JSON.stringify(sample(schema)), side: true };
    conversation.requests++;
    conversation.sideRequests++;
  } else action = conversation.next({ tools, results });
  const part =
    action.kind === "tool"
      ? { functionCall: { id: action.callId, name: action.name, args: action.args } }
      : { text: action.text };
  const response = {
    candidates: [{ content: { role: "model", parts: [part] }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 10, totalTokenCount: 110 },
    modelVersion: model,
  };
  if (method === "streamGenerateContent") {
    const s = sse(res);
    s.event(null, response);
    s.end();
  } else json(res, 200, response);
  return action;
}
