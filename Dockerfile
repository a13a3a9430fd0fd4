# syntax=docker/dockerfile:1
# Eunoe as a container: see README "Deploy". Build: docker build -t eunoe .
# Checked without a Docker daemon by `npm run check:deploy` (same start command, clean
# `npm ci --omit=dev` copy, filters folder outside the app, non-root user).

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Production dependencies only. better-sqlite3 ships prebuilt binaries for this platform;
#    the compiler toolchain is here only in case it must build from source, and stays in this stage.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# 2. The runtime image: the app (read-only for the server's user), production node_modules,
#    the data directory and the filters folder as volumes. No network is needed at start
#    (bundled price snapshot; set PRICING_FETCH=false to never try OpenRouter).
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=9099 \
    DATA_DIR=/data \
    VALVES_DIR=/data/valves \
    PRICING_DIR=/data/pricing \
    FILTERS_DIR=/filters
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY bin ./bin
COPY scripts/build.mjs ./scripts/build.mjs
COPY src ./src
COPY filters ./filters
COPY pricing ./pricing
# Compile src/ to dist/ (esbuild, a production dependency): the server imports JavaScript, no loader on every module.
RUN node scripts/build.mjs
# The `node` user (uid 1000) of the official image owns only what it writes: /data and /filters.
RUN mkdir -p /data /filters && chown node:node /data /filters
USER node
VOLUME ["/data", "/filters"]
EXPOSE 9099
# Public liveness route: no API key, no store or filter work.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||9099)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM (docker stop): requests in flight finish (at most 10 s), filters stop, the store closes, exit 0.
STOPSIGNAL SIGTERM
# The server itself (not npm, which would not pass SIGTERM on; not the supervisor: the
# orchestrator's restart policy restarts a dead container). tsx compiles only .ts filters, when they load.
CMD ["node", "dist/main.js"]
