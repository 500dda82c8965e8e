import de.bwaldvogel.mongo.MongoServer;
import de.bwaldvogel.mongo.MongoVersion;
import de.bwaldvogel.mongo.backend.h2.H2Backend;
import java.util.List;
import org.h2.mvstore.MVStore;

/**
 * The MongoDB wire-protocol server of the distributed tests (scripts/infra/mongo.mjs): mongo-java-server on its
 * H2 (MVStore) backend, so the data outlives a restart of the process.
 *
 *   java -cp <jars>:<this class> LanternMongo <host> <port> <h2 file> <commit delay ms>
 *
 * MVStore commits in the background; the commit delay bounds what a kill -9 can lose (real MongoDB's journal
 * commits every 100 ms by default, hence the same figure as the default). SIGTERM runs the shutdown hook, which
 * closes the clients and the store, so a clean stop loses nothing.
 *
 * mongo-java-server 1.47.0 announces wire version 8, but the Node.js driver 7 refuses servers below wire
 * version 9 (MongoDB 4.4). The server is told to announce 4.4 / 9, the lowest the driver accepts, so the driver
 * assumes as few server features as possible; what the emulator really implements does not change.
 */
public final class LanternMongo {
    private LanternMongo() {}

    private static final MongoVersion DRIVER_MINIMUM = new MongoVersion() {
        @Override
        public List<Integer> getVersionArray() {
            return List.of(4, 4, 0);
        }

        @Override
        public int getWireVersion() {
            return 9;
        }
    };

    public static void main(String[] args) {
        if (args.length != 4) {
            System.err.println("usage: LanternMongo <host> <port> <h2 file> <commit delay ms>");
            System.exit(2);
        }
        String host = args[0];
        int port = Integer.parseInt(args[1]);
        MVStore store = new MVStore.Builder().fileName(args[2]).open();
        store.setAutoCommitDelay(Integer.parseInt(args[3]));
        // Freed chunks are not overwritten: a long read (a metrics scan) under heavy writes otherwise fails with
        // "Chunk N not found" once the chunk of the version it reads is reused. The file grows instead; test data.
        store.setReuseSpace(false);
        H2Backend backend = new H2Backend(store);
        backend.version(DRIVER_MINIMUM);
        MongoServer server = new MongoServer(backend);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            // Closes the clients first so no write lands after the store's last commit, then closes the store.
            server.shutdownNow();
            System.err.println("lantern-mongo: stopped, H2 store closed");
        }, "lantern-mongo-shutdown"));
        server.bind(host, port);
        System.err.println("lantern-mongo: listening on " + host + ":" + port + " with H2 store " + args[2]);
    }
}
