# Production image: compiled JavaScript run by Node directly (signals reach the process), as a
# non-root user, without development dependencies. Build: docker build -t kb .
FROM node:20-bookworm-slim AS build
WORKDIR /src
RUN npm install -g pnpm@10.34.9
COPY . .
# `pnpm install` compiles every package (the root's prepare script runs `pnpm build`).
RUN pnpm install --frozen-lockfile
# The server and the CLI, each with only its production dependencies.
RUN pnpm deploy --filter=@kb/server --prod --legacy /app/server \
 && pnpm deploy --filter=@kb/cli --prod --legacy /app/cli

FROM node:20-bookworm-slim
ENV NODE_ENV=production KB_DATA_DIR=/data
WORKDIR /app
COPY --from=build /app /app
COPY docker/kb /usr/local/bin/kb
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 3000
# The worker: command ["node", "--conditions=production", "--max-semi-space-size=32", "server/dist/worker-main.js"]
CMD ["node", "--conditions=production", "--max-semi-space-size=32", "server/dist/main.js"]
