# Production image: builds the service and runs it against DATABASE_URL (see docker-compose.yml).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY scripts/healthcheck.cjs ./scripts/healthcheck.cjs
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=4s CMD ["node", "scripts/healthcheck.cjs"]
# Heap sizes for a service meant to stay within ~300 MB (docs/DECISIONS.md, "Memory"): V8's own
# follow the host's memory (on a large host a 128 MB young generation, and an old one left to grow
# to four times its live data between collections).
CMD ["node", "--max-semi-space-size=16", "--max-old-space-size=1024", "dist/src/main.js"]
