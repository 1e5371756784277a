# Image for the API, the projector and the CLI (docker-compose.yml). Native modules build from source here.
FROM node:20-bookworm
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build
ENV NODE_ENV=production
EXPOSE 3000
CMD ["node", "--no-node-snapshot", "dist/apps/api/src/main.js"]
