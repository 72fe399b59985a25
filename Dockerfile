# The service's image: one image for every role, chosen by the command (default: all).
#
#   docker build -t streaming-endpoints .
#   docker run -p 127.0.0.1:8080:8080 -e API_KEYS=... streaming-endpoints            # all, embedded store
#   docker run ... streaming-endpoints --role api                                     # API and ingest only
#   docker run ... -e METRICS_PORT=9464 streaming-endpoints --role consumers          # consumer group only
#
# Node 24 runs the TypeScript sources as they are (type stripping): no build step. Production
# dependencies only; runs as the unprivileged `node` user; listens on all interfaces of the
# container (HOST=0.0.0.0), so a published port reaches it. docker-compose.yml uses this image.
#
# BASE_IMAGE is node:24-slim; `npm run image:test` gives a local image laid out the same way
# where no registry of images is reachable (tools/image/base.sh: Debian's packages and Node 24
# from the npm registry).

ARG BASE_IMAGE=node:24-slim

FROM ${BASE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM ${BASE_IMAGE}
# tini as PID 1: it passes the engine's SIGTERM on to node, whose default action still applies
# until the service has installed its handlers (as PID 1 node would ignore a stop signal while
# it loads, and wait for SIGKILL at the end of the grace period); -e 143 reports that stop as
# the clean exit it is.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini \
 && apt-get clean \
 && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY src ./src
COPY api ./api
COPY consumers ./consumers
COPY service ./service
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "service/healthcheck.ts"]
ENTRYPOINT ["tini", "-e", "143", "--", "node", "--disable-warning=TimeoutNegativeWarning", "service/main.ts"]
CMD ["--role", "all"]
