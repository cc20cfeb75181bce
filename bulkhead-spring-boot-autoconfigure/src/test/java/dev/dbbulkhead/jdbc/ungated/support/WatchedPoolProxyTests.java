package dev.dbbulkhead.jdbc.ungated.support;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.autoconfigure.SharedDatabase;
import dev.dbbulkhead.jdbc.ungated.DetectionSettings;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionDetector;
import dev.dbbulkhead.jdbc.ungated.UngatedConnectionListener;
import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.cglib.proxy.Factory;

/** The stand-in of a pool's own class: what it routes where, and which classes it refuses to stand in for. */
class WatchedPoolProxyTests {

    private static DataSource standIn(HikariDataSource pool) {
        return WatchedPoolProxy.proxy(pool, new WatchedDataSource(pool,
                new UngatedConnectionDetector("main", DetectionSettings.defaults(), UngatedConnectionListener.NONE)));
    }

    @Test
    void onceThePoolHasStartedABorrowGoesStraightToTheWatchAndTheFieldsCopyFollowsThePool() throws SQLException {
        // Made as Spring Boot makes it: configured by setters, started by its first borrow.
        try (HikariDataSource pool = new HikariDataSource()) {
            SharedDatabase.DATABASE.poolConfig(1, "lazily-started").copyStateTo(pool);
            DataSource standIn = standIn(pool);
            Factory factory = (Factory) standIn;
            Object firstBorrow = factory.getCallback(1);
            assertThat(new DirectFieldAccessor(standIn).getPropertyValue("pool")).as("not started yet").isNull();

            try (Connection connection = standIn.getConnection()) {
                assertThat(connection.isValid(1)).isTrue();
            }

            assertThat(factory.getCallback(1)).as("the steady borrow").isNotSameAs(firstBorrow);
            assertThat(factory.getCallback(1).getClass().isHidden()).as("a method reference to the watch").isTrue();
            assertThat(new DirectFieldAccessor(standIn).getPropertyValue("pool")).as("the started pool, copied")
                    .isNotNull().isSameAs(new DirectFieldAccessor(pool).getPropertyValue("pool"));
        }
    }

    @Test
    void aPoolStartedBeforeItIsWatchedIsCopiedStarted() {
        try (HikariDataSource pool = SharedDatabase.DATABASE.pool(1)) {
            assertThat(new DirectFieldAccessor(standIn(pool)).getPropertyValue("pool")).isNotNull()
                    .isSameAs(new DirectFieldAccessor(pool).getPropertyValue("pool"));
        }
    }

    @Test
    void aClassNoSubclassCanStandInForIsNamedWithTheReason() {
        DataSource jdkProxy = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> null);

        assertThat(WatchedPoolProxy.whyNotSubclassable(HikariDataSource.class)).isNull();
        assertThat(WatchedPoolProxy.whyNotSubclassable(OwnPool.class)).isNull();
        assertThat(WatchedPoolProxy.whyNotSubclassable(FinalPool.class)).isEqualTo("its class is final");
        assertThat(WatchedPoolProxy.whyNotSubclassable(SealedPool.class)).isEqualTo("its class is sealed");
        assertThat(WatchedPoolProxy.whyNotSubclassable(PrivatePool.class))
                .isEqualTo("its class has no constructor a subclass could call");
        assertThat(WatchedPoolProxy.whyNotSubclassable(FinalMethodPool.class))
                .isEqualTo("its method tenant is final");
        assertThat(WatchedPoolProxy.whyNotSubclassable(jdkProxy.getClass())).startsWith("it is a JDK proxy");
    }

    static class OwnPool extends HikariDataSource {
    }

    static final class FinalPool extends HikariDataSource {
    }

    static sealed class SealedPool extends HikariDataSource permits OnlyPool {
    }

    static final class OnlyPool extends SealedPool {
    }

    static class PrivatePool extends HikariDataSource {

        private PrivatePool() {
        }
    }

    static class FinalMethodPool extends HikariDataSource {

        public final String tenant() {
            return "acme";
        }
    }
}
