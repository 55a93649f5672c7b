// Runs the official openai client against a zest URL given as argv[2] with
// the key in argv[3] and model argv[4], in a process started with
// NODE_EXTRA_CA_CERTS (so trust comes from the generated CA only). Prints
// {models, content} as JSON.
import OpenAI from 'openai';

const [baseURL, apiKey, model] = process.argv.slice(2);
const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60000 });
const models = await client.models.list();
const chat = await client.chat.completions.create({
  model, max_tokens: 4, messages: [{ role: 'user', content: 'hi' }],
});
console.log(JSON.stringify({
  models: models.data.map((m) => m.id),
  content: chat.choices[0].message.content,
  finish: chat.choices[0].finish_reason,
}));
