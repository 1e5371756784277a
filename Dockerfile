# Image for the API, the projector and the CLI (docker-compose.yml). Native modules build from source here.
FROM node:20-bookworm
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build
# The apps run as `vault`, which owns the data dirs and nothing else: the code and node_modules stay root's, so the
# service cannot rewrite itself. Fixed ids, so that a host directory mounted as the data dir can be given to it.
# Not being root, the API cannot give its reactor child processes another user: they run as `vault` too.
# /app/data is VAULT_DATA_DIR's default (./data under the working directory); docker-compose.yml sets /data, and
# Docker gives a new named volume the owner and mode of the image's directory it is mounted on.
RUN groupadd --gid 10001 vault \
 && useradd --uid 10001 --gid vault --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin vault \
 && install -d -o vault -g vault -m 0700 /app/data /data
VOLUME ["/app/data"]
ENV NODE_ENV=production
# Inside a container the API must listen on every interface for the published port to reach it.
ENV HOST=0.0.0.0
USER vault:vault
EXPOSE 3000
CMD ["node", "--no-node-snapshot", "dist/apps/api/src/main.js"]
