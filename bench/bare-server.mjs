// The floor the service is compared with: a bare Fastify server that parses the same JSON bodies and
// answers 202, with no auth, no filters and no database. Started by bench/run.mjs as a child process
// (so it does not share an event loop with the load generator); prints its base URL on one line.
import Fastify from 'fastify';
import { stopWithParent } from './stop-with-parent.mjs';

const BODY_LIMIT = 5_242_880;

const app = Fastify({ logger: false, bodyLimit: BODY_LIMIT });

const answer = async (request, reply) => {
  const body = request.body;
  const received = Array.isArray(body) ? body.length : body && typeof body === 'object' ? 1 : 0;
  reply.code(202);
  return { received };
};
app.post('/v1/trace', answer);
app.post('/v1/alert', answer);

stopWithParent(() => app.close());

const address = await app.listen({ port: 0, host: '127.0.0.1' });
console.log(`bare fastify listening on ${address}`);
