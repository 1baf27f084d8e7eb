# syntax=docker/dockerfile:1
# mcp-retrofit sidecar image: build with dev dependencies, ship production dependencies only, run as non-root.
# Node 24 LTS in both stages; test/integration/ops-image-entry.test.ts fails when this major and the one the
# suite runs on (.ci/run) differ.

FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json mcp-retrofit.schema.json ./
COPY src ./src
# The operator console's pages (ui/, bundled by vite into dist/ui at build time; served at /ui when enabled).
COPY ui ./ui
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=root:root /app/node_modules ./node_modules
COPY --from=build --chown=root:root /app/dist ./dist
COPY --chown=root:root package.json mcp-retrofit.schema.json ./
# The operator mounts the config at /etc/mcp-retrofit/config.yaml (ConfigMap, bind mount); schema files it
# names are resolved relative to it, so mount them beside it.
# The node image ships an unprivileged "node" user (uid 1000).
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:8080/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form, no shell: node is PID 1, so SIGTERM reaches the gateway's graceful shutdown directly.
ENTRYPOINT ["node", "dist/cli.js"]
CMD ["--config", "/etc/mcp-retrofit/config.yaml", "--host", "0.0.0.0", "--port", "8080"]
