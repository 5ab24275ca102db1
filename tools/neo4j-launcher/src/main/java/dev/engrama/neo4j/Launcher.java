package dev.engrama.neo4j;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.connectors.BoltConnectorInternalSettings;
import org.neo4j.configuration.connectors.ConnectorPortRegister;
import org.neo4j.configuration.connectors.ConnectorType;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;
import org.neo4j.internal.helpers.HostnamePort;
import org.neo4j.io.ByteUnit;
import org.neo4j.kernel.internal.GraphDatabaseAPI;

/**
 * Starts an embedded Neo4j Community DBMS with Bolt on a loopback port and auth disabled, for
 * integration tests. Prints {@code NEO4J_READY bolt://HOST:PORT} on stdout once queries work.
 *
 * <pre>
 * java [--add-opens ...] -jar neo4j-launcher.jar [--port P] [--host H] [--data DIR]
 *      [--port-file F] [--pagecache SIZE] [--exit-on-stdin-close] [--conf FILE]
 *      [--set key=value]...
 * </pre>
 */
public final class Launcher {
    private static final PrintStream OUT = System.out;
    private static final PrintStream ERR = System.err;

    public static void main(String[] args) throws Exception {
        int port = 0; // 0 = let the OS pick a free port
        String host = "127.0.0.1";
        Path data = null;
        Path portFile = null;
        Path confFile = null;
        String pagecache = "64m";
        boolean exitOnStdinClose = false;
        Map<String, String> raw = new LinkedHashMap<>();

        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--port" -> port = Integer.parseInt(need(args, ++i, a));
                case "--host" -> host = need(args, ++i, a);
                case "--data" -> data = Path.of(need(args, ++i, a));
                case "--port-file" -> portFile = Path.of(need(args, ++i, a));
                case "--conf" -> confFile = Path.of(need(args, ++i, a));
                case "--pagecache" -> pagecache = need(args, ++i, a);
                case "--exit-on-stdin-close" -> exitOnStdinClose = true;
                case "--set" -> {
                    String kv = need(args, ++i, a);
                    int eq = kv.indexOf('=');
                    if (eq <= 0) usage("--set expects key=value, got: " + kv);
                    raw.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
                case "-h", "--help" -> {
                    usage(null);
                }
                default -> usage("unknown argument: " + a);
            }
        }

        boolean tempData = data == null;
        Path home = tempData ? Files.createTempDirectory("engrama-neo4j-") : data.toAbsolutePath();
        Files.createDirectories(home);

        long start = System.nanoTime();
        ERR.printf("neo4j-launcher: home=%s bolt=%s:%d pagecache=%s%n", home, host, port, pagecache);

        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(host, port))
                .setConfig(BoltConnector.encryption_level, BoltConnector.EncryptionLevel.DISABLED)
                .setConfig(GraphDatabaseSettings.pagecache_memory, ByteUnit.parse(pagecache))
                // tests create and drop lots of small data: don't preallocate 256 MiB tx logs
                .setConfig(GraphDatabaseSettings.preallocate_logical_logs, false)
                .setConfig(GraphDatabaseSettings.logical_log_rotation_threshold, ByteUnit.mebiBytes(32))
                // Bolt waits 5 s per connector on shutdown by default; tests stop/restart often
                .setConfig(BoltConnectorInternalSettings.enable_local_connector, false)
                .setConfig(BoltConnectorInternalSettings.connection_shutdown_wait_time, Duration.ofMillis(500))
                .setConfig(BoltConnectorInternalSettings.thread_pool_shutdown_wait_time, Duration.ofMillis(500));
        if (confFile != null) builder.loadPropertiesFromFile(confFile.toAbsolutePath());
        if (!raw.isEmpty()) {
            // the builder has no raw key=value setter: pass them through a properties file
            StringBuilder sb = new StringBuilder();
            raw.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
            Path extra = home.resolve("neo4j-launcher-extra.conf");
            Files.writeString(extra, sb.toString(), StandardCharsets.UTF_8);
            builder.loadPropertiesFromFile(extra);
        }

        DatabaseManagementService dbms;
        try {
            dbms = builder.build();
        } catch (RuntimeException e) {
            ERR.println("neo4j-launcher: failed to start: " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) ERR.println("  caused by: " + c);
            if (tempData) deleteTree(home);
            System.exit(1);
            return;
        }

        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean shuttingDown = new AtomicBoolean(false);
        final Path portFileF = portFile;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!shuttingDown.compareAndSet(false, true)) return;
            ERR.println("neo4j-launcher: shutting down");
            try {
                dbms.shutdown();
            } catch (Throwable t) {
                ERR.println("neo4j-launcher: shutdown error: " + t);
            }
            if (portFileF != null) {
                try { Files.deleteIfExists(portFileF); } catch (IOException ignored) { }
            }
            if (tempData) deleteTree(home);
            ERR.println("neo4j-launcher: stopped");
            stopped.countDown();
        }, "neo4j-launcher-shutdown"));

        GraphDatabaseService db = dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME);
        db.executeTransactionally("RETURN 1");

        int boltPort = port;
        if (db instanceof GraphDatabaseAPI api) {
            HostnamePort hp = api.getDependencyResolver()
                    .resolveDependency(ConnectorPortRegister.class)
                    .getLocalAddress(ConnectorType.BOLT);
            if (hp != null) boltPort = hp.getPort();
        }
        if (boltPort <= 0) {
            ERR.println("neo4j-launcher: could not determine the Bolt port");
            System.exit(2);
        }
        waitForPort(host, boltPort);

        if (portFile != null) {
            Path abs = portFile.toAbsolutePath();
            if (abs.getParent() != null) Files.createDirectories(abs.getParent());
            Path tmp = abs.resolveSibling(abs.getFileName() + ".tmp");
            Files.writeString(tmp, boltPort + "\n", StandardCharsets.UTF_8);
            Files.move(tmp, abs, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }

        ERR.printf("neo4j-launcher: ready in %d ms%n", (System.nanoTime() - start) / 1_000_000);
        OUT.println("NEO4J_READY bolt://" + host + ":" + boltPort);
        OUT.flush();

        if (exitOnStdinClose) {
            Thread watcher = new Thread(() -> {
                try {
                    InputStream in = System.in;
                    byte[] buf = new byte[256];
                    while (in.read(buf) >= 0) { /* discard */ }
                } catch (IOException ignored) {
                    // treat a broken stdin like a closed one
                }
                ERR.println("neo4j-launcher: stdin closed");
                System.exit(0);
            }, "neo4j-launcher-stdin");
            watcher.setDaemon(true);
            watcher.start();
        }

        stopped.await();
    }

    private static void waitForPort(String host, int port) throws InterruptedException {
        long deadline = System.currentTimeMillis() + 30_000;
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(host, port), 1000);
                return;
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    ERR.println("neo4j-launcher: Bolt port " + port + " not accepting connections: " + e);
                    System.exit(3);
                }
                Thread.sleep(100);
            }
        }
    }

    private static void deleteTree(Path root) {
        try (Stream<Path> walk = Files.walk(root)) {
            walk.sorted(Comparator.reverseOrder()).forEach(p -> {
                try { Files.deleteIfExists(p); } catch (IOException ignored) { }
            });
        } catch (IOException ignored) {
            // best effort
        }
    }

    private static String need(String[] args, int i, String flag) {
        if (i >= args.length) usage(flag + " needs a value");
        return args[i];
    }

    private static void usage(String error) {
        PrintStream s = error == null ? OUT : ERR;
        if (error != null) s.println("neo4j-launcher: " + error);
        s.println("usage: neo4j-launcher [--port P] [--host H] [--data DIR] [--port-file F]");
        s.println("                      [--pagecache SIZE] [--exit-on-stdin-close] [--conf neo4j.conf]");
        s.println("                      [--set key=value]...");
        System.exit(error == null ? 0 : 64);
    }
}
