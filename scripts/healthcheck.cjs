// Container health check: GET /health/ready over HTTP, or HTTPS when the service serves TLS itself
// (loopback only, so the certificate's name is not checked). Exit 0 when ready.
const { get } = require(process.env.TLS_CERT_FILE ? 'node:https' : 'node:http');
get({ host: '127.0.0.1', port: Number(process.env.PORT || 3000), path: '/health/ready', rejectUnauthorized: false, timeout: 3000 }, (res) =>
  process.exit(res.statusCode === 200 ? 0 : 1),
).on('error', () => process.exit(1));
