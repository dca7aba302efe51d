# The API's image (docs/operations.md "Container image"): built in one stage, run from a second
# that holds only the bundle and the production dependencies, as a user without privileges.
#   podman build -t venue-api --build-arg COMMIT=$(git rev-parse --short=12 HEAD) .
# NODE_IMAGE: any Debian-based Node 20.19+, 22 or 24 image (the official slim one by default).
ARG NODE_IMAGE=docker.io/library/node:24-bookworm-slim

FROM ${NODE_IMAGE} AS build
# better-sqlite3 compiles from source when no prebuilt binary can be downloaded for the
# platform: a compiler for this stage only (the slim images have none).
RUN if ! command -v g++ >/dev/null || ! command -v make >/dev/null || ! command -v python3 >/dev/null; then \
      apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
COPY . .
ARG COMMIT=unknown
# npm ci builds dist/ (the prepare script); the prune then drops the build tools and keeps it.
RUN BUILD_COMMIT=${COMMIT} npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/bin ./bin
# /docs serves the webhooks guide from docs/webhooks.md itself.
COPY --from=build /app/docs ./docs
COPY --from=build /app/dist/bundle ./dist/bundle
COPY --from=build /app/node_modules ./node_modules
# The SQLite default's folder, writable by the user the server runs as (no name needed: a uid).
RUN mkdir -p /data && chown 10001:10001 /data
USER 10001:10001
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATABASE_URL=/data/venue.sqlite \
    DEMO=off
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/bundle/server.js"]
