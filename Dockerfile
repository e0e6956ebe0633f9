FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY . .
ENV NODE_ENV=production PORT=7575 HOST=0.0.0.0 DATA_DIR=/data
EXPOSE 7575
VOLUME /data
STOPSIGNAL SIGTERM
CMD ["node", "node_modules/tsx/dist/cli.mjs", "src/main.ts"]
