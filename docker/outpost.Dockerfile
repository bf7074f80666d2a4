# syntax=docker/dockerfile:1
# The Outpost service. Build context: the repository root.
#   docker build -f docker/outpost.Dockerfile -t outpost/server:0.1.0-SNAPSHOT .
# Same command as `./outpost start`: java -jar outpost-server-VERSION-exec.jar, port 8000, settings by
# OUTPOST_* environment variables (Spring relaxed binding: OUTPOST_DATABASE_URL = outpost.database.url).

# --- build: Maven on a JDK 21 image, only the service and what it needs --------------------------------------
FROM maven:3.9.11-eclipse-temurin-21 AS build
WORKDIR /src
COPY pom.xml ./
# Maven reads every module the root pom lists, so each one's pom.xml must be there; only the service's modules
# are built (-pl server/app -am, which takes in the test kit its tests compile against), so only their sources
# are copied.
COPY client-java/pom.xml client-java/pom.xml
COPY loadtest/pom.xml loadtest/pom.xml
COPY server/integration/pom.xml server/integration/pom.xml
COPY testkit testkit
COPY wire wire
COPY server/store server/store
COPY server/frontier server/frontier
COPY server/app server/app
RUN --mount=type=cache,target=/root/.m2 \
    mvn -B -ntp -q -pl server/app -am -DskipTests package \
 && cp server/app/target/outpost-server-0.1.0-SNAPSHOT-exec.jar /outpost-server.jar

# --- run: JRE 21, non-root ------------------------------------------------------------------------------------
FROM eclipse-temurin:21.0.8_9-jre-noble
RUN apt-get update \
 && apt-get install -y --no-install-recommends curl=8.5.* \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 outpost \
 && useradd --system --uid 10001 --gid outpost --home-dir /var/lib/outpost --create-home outpost
COPY --from=build /outpost-server.jar /opt/outpost/outpost-server-0.1.0-SNAPSHOT-exec.jar
WORKDIR /var/lib/outpost
USER outpost
# The embedded SQLite demo database (the default outpost.database.url) lives in /var/lib/outpost/data.
VOLUME ["/var/lib/outpost/data"]
EXPOSE 8000
ENV JAVA_TOOL_OPTIONS="-XX:MaxRAMPercentage=70 -XX:+ExitOnOutOfMemoryError"
HEALTHCHECK --interval=15s --timeout=3s --start-period=90s --retries=3 \
  CMD curl -fsS http://127.0.0.1:8000/actuator/health || exit 1
ENTRYPOINT ["java", "-jar", "/opt/outpost/outpost-server-0.1.0-SNAPSHOT-exec.jar"]
