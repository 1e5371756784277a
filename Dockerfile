# Image for the API, the projector and the CLI (docker-compose.yml): one build stage with every dependency, one
# runtime stage with the built code and the production dependencies only. Native modules (better-sqlite3, isolated-vm)
# are built from source in the build stage, on the same Debian release as the runtime stage.
FROM node:20-bookworm AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
# The API, the CLI, the projector and the console; then the dev dependencies (compilers, test tools) are dropped.
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim AS runtime
WORKDIR /app
# The apps run as `vault`, which owns the data dir and nothing else: the code and node_modules stay root's, so the
# service cannot rewrite itself. Fixed ids, so that a host directory mounted as the data dir can be given to it.
# Not being root, the API cannot give its reactor child processes another user: they run as `vault` too.
RUN groupadd --gid 10001 vault \
 && useradd --uid 10001 --gid vault --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin vault \
 && install -d -o vault -g vault -m 0700 /data
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY --from=build /app/formulas ./formulas
ENV NODE_ENV=production
# The data dir (event log, read models, key store) lives on a volume, never in the container's layer. Keep the key
# store's volume apart from any backup of the rest (docs/operations.md).
ENV VAULT_DATA_DIR=/data
VOLUME ["/data"]
# Inside a container the API must listen on every interface for the published port to reach it.
ENV HOST=0.0.0.0
USER vault:vault
EXPOSE 3000
# Ready: the stores answer and the read models have caught up (GET /health/ready); no curl in the slim image.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "--no-node-snapshot", "dist/apps/api/src/main.js"]
