/** The hosts a sandbox reaches when it names none: the npm registry and the model APIs the harnesses use. */
export const DEFAULT_ALLOWED_DOMAINS: readonly string[] = Object.freeze([
  'registry.npmjs.org',
  'api.anthropic.com',
  'api.openai.com',
  'chatgpt.com',
  'ai-gateway.vercel.sh',
]);
