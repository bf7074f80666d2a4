# syntax=docker/dockerfile:1
# The site cache: Debian's Squid 5 with squid-config/squid.conf, started by squid-config/run-squid.sh exactly as
# in development and in the integration tests. Build context: the repository root.
#   docker build -f docker/squid.Dockerfile -t outpost/squid:0.1.0-SNAPSHOT .
# Settings by SQUID_* environment variables (see the top of squid-config/run-squid.sh).
FROM debian:12.12-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends squid=5.7-* \
 && rm -rf /var/lib/apt/lists/* \
 && mkdir -p /var/spool/outpost-squid \
 && chown proxy:proxy /var/spool/outpost-squid
COPY squid-config/squid.conf squid-config/run-squid.sh /opt/outpost-squid/
ENV SQUID_DIR=/var/spool/outpost-squid \
    SQUID_LISTEN="" \
    SQUID_PORT=3128 \
    SQUID_USER=proxy \
    SQUID_CACHE_MEM=256 \
    SQUID_CACHE_DISK=10000
VOLUME ["/var/spool/outpost-squid"]
USER proxy
EXPOSE 3128
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/3128"]
ENTRYPOINT ["/opt/outpost-squid/run-squid.sh", "run"]
