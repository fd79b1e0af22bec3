# One image for every `meerkat` sub-command (hub, scheduler, worker, runner, operator, migrate, keygen):
#   docker build -t meerkat .   then   docker run meerkat hub
# It runs the compiled dist/ (docs/adr/0001-running-typescript-sources.md) as a non-root user and writes only to
# /tmp, so it runs with a read-only root filesystem (the Helm chart mounts an emptyDir there).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY hub ./hub
COPY operator ./operator
RUN npm run build
# The web console (docs/adr/0020-web-console.md): built here, served by the hub from dist/web/dist.
COPY web ./web
RUN npm run build:console

FROM node:20-bookworm-slim AS production-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
# A fixed numeric id, so runAsNonRoot can verify it without a passwd lookup.
RUN groupadd --gid 10001 meerkat && useradd --uid 10001 --gid meerkat --no-create-home --shell /usr/sbin/nologin meerkat
COPY --from=production-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./dist/web/dist
COPY package.json ./
COPY bin ./bin
USER 10001:10001
EXPOSE 3000 9464
ENTRYPOINT ["node", "bin/meerkat.js"]
CMD ["--help"]
