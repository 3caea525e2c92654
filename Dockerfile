# b2-mcp over Streamable HTTP. Build: docker build -t b2-mcp .  Run: see docs/deploy.md.
# Nothing secret is baked in: keys come per request (headers mode) or from the runtime environment.

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Lifecycle scripts stay off: `prepare` would build before the sources are here.
RUN npm ci --no-audit --no-fund --ignore-scripts
COPY tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY scripts ./scripts
COPY bench ./bench
COPY deploy ./deploy
COPY api ./api
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    B2_MCP_TRANSPORT=http \
    PORT=3000
WORKDIR /app
COPY --from=build --chown=root:root /app/package.json ./package.json
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
# Files owned by root and read-only to the server: it runs as the unprivileged `node` user and
# writes nothing (logs go to stderr, HTTP keeps the secret sink off), so `--read-only` works.
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/bin/b2-mcp.js", "http", "--host", "0.0.0.0"]
