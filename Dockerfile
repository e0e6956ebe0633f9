FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY . .
# The server as JavaScript (build/, no TypeScript loader at run time) and the migrated template new embedded
# databases are copied from (a first start on PGlite in about 3 s instead of 15).
RUN node scripts/build-server.js --force --strict && node --require tsx/cjs scripts/db-template.ts
ENV NODE_ENV=production PORT=7575 HOST=0.0.0.0 DATA_DIR=/data
EXPOSE 7575
VOLUME /data
STOPSIGNAL SIGTERM
# node itself is PID 1's only process: SIGTERM (docker stop) reaches the server, which stops gracefully.
CMD ["node", "build/main.js"]
