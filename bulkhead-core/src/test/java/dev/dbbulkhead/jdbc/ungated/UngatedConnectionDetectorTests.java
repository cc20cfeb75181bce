package dev.dbbulkhead.jdbc.ungated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.zaxxer.hikari.HikariConfigMXBean;
import com.zaxxer.hikari.HikariDataSource;
import dev.dbbulkhead.gate.AdmissionGate;
import dev.dbbulkhead.gate.GateConfig;
import dev.dbbulkhead.gate.Permit;
import dev.dbbulkhead.testing.PostgresFixture;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A watched pool on real PostgreSQL: which borrows its detector counts, under which call site, and how often it tells. */
@Timeout(value = 2, unit = TimeUnit.MINUTES) // only against a hang; no assertion depends on time
class UngatedConnectionDetectorTests {

    /** This test's package is the application's: its frames are the call sites, as an application's would be. */
    private static final CallerRules RULES = CallerRules.defaults()
            .withApplicationPackages(List.of(UngatedConnectionDetectorTests.class.getPackageName()));

    private static HikariDataSource pool;

    private final RecordedSightings sightings = new RecordedSightings();
    private final AdmissionGate gate = new AdmissionGate("orders", GateConfig.builder().maxConcurrent(2).build());

    @BeforeAll
    static void openPool() {
        pool = PostgresFixture.freshSchema().pool(2);
    }

    @AfterAll
    static void closePool() {
        pool.close();
    }

    private WatchedDataSource watched(DetectionSettings settings) {
        return new WatchedDataSource(pool, new UngatedConnectionDetector("main", settings, sightings));
    }

    private WatchedDataSource watched() {
        return watched(new DetectionSettings(RULES, false, DetectionSettings.DEFAULT_CALL_SITES,
                DetectionSettings.PLAIN_JDBC_ADVICE));
    }

    /** Each kept site as {@code method=borrows}, most borrows first, as the report orders them. */
    private static List<String> countsBySite(UngatedConnectionReport report) {
        return report.callSites().stream().map(count -> count.site().methodName() + "=" + count.connections())
                .toList();
    }

    private static void borrowFromSiteA(WatchedDataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
    }

    private static void borrowFromSiteB(WatchedDataSource dataSource) throws SQLException {
        try (Connection connection = dataSource.getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
    }

    @Test
    void aConnectionBorrowedOutsideEveryGateIsCountedUnderTheApplicationFrameThatBorrowedIt() throws SQLException {
        WatchedDataSource dataSource = watched();

        borrowFromSiteA(dataSource);

        UngatedConnectionReport report = dataSource.detector().report();
        assertThat(report.connections()).isOne();
        CallSite site = report.callSites().get(0).site();
        assertThat(site.className()).isEqualTo(UngatedConnectionDetectorTests.class.getName());
        assertThat(site.methodName()).isEqualTo("borrowFromSiteA");
        assertThat(site.application()).isTrue();
        assertThat(site.toString()).matches(
                "dev\\.dbbulkhead\\.jdbc\\.ungated\\.UngatedConnectionDetectorTests\\.borrowFromSiteA"
                        + "\\(UngatedConnectionDetectorTests\\.java:\\d+\\)");
        assertThat(sightings.descriptions).singleElement().asString()
                .contains("pool 'main'", "outside every gate", site.toString(), "JdbcBulkhead");
    }

    @Test
    void aConnectionBorrowedInsideAnAdmittedOperationIsNotCounted() throws SQLException {
        WatchedDataSource dataSource = watched();

        try (Permit permit = gate.acquire()) {
            borrowFromSiteA(dataSource);
        }

        assertThat(dataSource.detector().report().connections()).isZero();
        assertThat(sightings.newSites).isEmpty();
    }

    @Test
    void aThreadStartedInsideAnAdmittedOperationBorrowsInsideItUntilTheOperationEnds() throws Exception {
        WatchedDataSource dataSource = watched();
        CountDownLatch borrowedWhileHeld = new CountDownLatch(1);
        CountDownLatch released = new CountDownLatch(1);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        Thread forked;
        try (Permit permit = gate.acquire()) {
            forked = Thread.ofVirtual().start(() -> {
                try {
                    borrowFromSiteA(dataSource);
                    borrowedWhileHeld.countDown();
                    released.await();
                    borrowFromSiteB(dataSource);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            borrowedWhileHeld.await();
            assertThat(dataSource.detector().report().connections()).as("forked work is part of the operation").isZero();
        }
        released.countDown();
        forked.join();

        assertThat(failure.get()).isNull();
        assertThat(dataSource.detector().report().callSites()).singleElement()
                .satisfies(count -> assertThat(count.site().methodName()).isEqualTo("borrowFromSiteB"));
    }

    @Test
    void eachCallSiteIsToldOnceHoweverOftenItBorrows() throws SQLException {
        WatchedDataSource dataSource = watched();

        for (int i = 0; i < 5; i++) {
            borrowFromSiteA(dataSource);
        }
        borrowFromSiteB(dataSource);

        UngatedConnectionReport report = dataSource.detector().report();
        assertThat(report.connections()).isEqualTo(6);
        assertThat(countsBySite(report))
                .containsExactly("borrowFromSiteA=5", "borrowFromSiteB=1");
        assertThat(sightings.newSites).extracting(CallSite::methodName)
                .containsExactlyInAnyOrder("borrowFromSiteA", "borrowFromSiteB");
    }

    private static void borrowTwiceOnOneLine(WatchedDataSource dataSource) throws SQLException {
        try (Connection first = dataSource.getConnection(); Connection second = dataSource.getConnection()) {
            assertThat(first.isValid(1) && second.isValid(1)).isTrue();
        }
    }

    @Test
    void twoBorrowsOnOneLineAreOneCallSiteAndASiteBorrowingAgainIsCountedUnderTheSameSite() throws SQLException {
        WatchedDataSource dataSource = watched();

        for (int i = 0; i < 3; i++) {
            borrowTwiceOnOneLine(dataSource);
            borrowFromSiteA(dataSource);
        }

        UngatedConnectionReport report = dataSource.detector().report();
        assertThat(report.connections()).isEqualTo(9);
        assertThat(countsBySite(report))
                .containsExactly("borrowTwiceOnOneLine=6", "borrowFromSiteA=3");
        assertThat(sightings.newSites).extracting(CallSite::methodName)
                .containsExactlyInAnyOrder("borrowTwiceOnOneLine", "borrowFromSiteA");
    }

    @Test
    void aSitePastTheCapIsCountedAmongTheOthersEveryTimeItBorrowsWhileTheKeptSiteGoesOnBeingCounted()
            throws SQLException {
        WatchedDataSource dataSource = watched(new DetectionSettings(RULES, false, 1,
                DetectionSettings.PLAIN_JDBC_ADVICE));

        for (int i = 0; i < 3; i++) {
            borrowFromSiteA(dataSource);
            borrowFromSiteB(dataSource);
        }

        UngatedConnectionReport report = dataSource.detector().report();
        assertThat(report.connections()).isEqualTo(6);
        assertThat(countsBySite(report))
                .containsExactly("borrowFromSiteA=3");
        assertThat(report.otherCallSites()).isEqualTo(3);
        assertThat(sightings.newSites).extracting(CallSite::methodName).containsExactly("borrowFromSiteA");
    }

    @Test
    void aRecognisedCallerIsCountedUnderItsRuleNeitherReportedNorRefusedEvenWhenItCallsTheBorrowingCode()
            throws SQLException {
        DetectionSettings settings = new DetectionSettings(
                RULES.recognising(List.of(Warmer.class.getName())), true, 10, "advice");
        WatchedDataSource dataSource = watched(settings);

        new Warmer().warm(dataSource);

        UngatedConnectionReport report = dataSource.detector().report();
        assertThat(report.connections()).isZero();
        assertThat(report.recognised()).containsEntry(Warmer.class.getName(), 1L);
        assertThat(sightings.newSites).isEmpty();
    }

    @Test
    void workRunInUngatedWorkAllowIsRecognisedNeitherReportedNorRefused() throws SQLException {
        WatchedDataSource dataSource = watched(new DetectionSettings(RULES, true, 10, "advice"));

        UngatedWork.allow(() -> {
            borrowFromSiteA(dataSource);
            return null;
        });
        UngatedConnectionException afterwards = catchThrowableOfType(UngatedConnectionException.class,
                () -> borrowFromSiteA(dataSource));

        assertThat(dataSource.detector().report().recognised()).containsEntry(UngatedWork.RULE, 1L);
        assertThat((Throwable) afterwards).as("the scope ends with the work").isNotNull();
    }

    @Test
    void anInnerScopeCountsUnderItsOwnRuleTheOuterOneIsBackAfterItAndClosingTwiceChangesNothing()
            throws SQLException {
        WatchedDataSource dataSource = watched();

        UngatedWork.Scope outer = UngatedWork.open("outer");
        borrowFromSiteA(dataSource);
        UngatedWork.allow("inner", () -> {
            borrowFromSiteA(dataSource);
            return null;
        });
        borrowFromSiteA(dataSource);
        outer.close();
        UngatedWork.Scope next = UngatedWork.open("next");
        outer.close();
        borrowFromSiteA(dataSource);
        next.close();
        borrowFromSiteA(dataSource);

        assertThat(dataSource.detector().report().recognised())
                .containsOnly(Map.entry("outer", 2L), Map.entry("inner", 1L), Map.entry("next", 1L));
        assertThat(dataSource.detector().connections()).as("after every scope closed").isOne();
    }

    @Test
    void refusingSettingsRefuseTheBorrowNamingThePoolTheCallSiteAndTheFixAndBorrowNothing() {
        WatchedDataSource dataSource = watched(new DetectionSettings(RULES, true, 10,
                "Gate it, or recognise its caller."));

        UngatedConnectionException refused = catchThrowableOfType(UngatedConnectionException.class,
                () -> borrowFromSiteA(dataSource));

        assertThat(refused.pool()).isEqualTo("main");
        assertThat(refused.callSite().methodName()).isEqualTo("borrowFromSiteA");
        assertThat(refused.getSQLState()).isEqualTo("08001");
        assertThat((Throwable) refused).hasMessageContaining("pool 'main'").hasMessageContaining("borrowFromSiteA(")
                .hasMessageContaining("Gate it, or recognise its caller.");
        assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("nothing borrowed").isZero();
        assertThat(dataSource.detector().report().connections()).as("a refused borrow is counted").isOne();
    }

    @Test
    void theWatchedPoolUnwrapsToThePoolAndWhatThePoolStandsFor() throws SQLException {
        WatchedDataSource dataSource = watched();

        assertThat(dataSource.unwrap(HikariDataSource.class)).isSameAs(pool);
        assertThat(dataSource.isWrapperFor(HikariConfigMXBean.class)).isTrue();
        assertThat(dataSource.unwrap(HikariConfigMXBean.class)).isSameAs(pool);
        assertThat(dataSource.unwrap(WatchedDataSource.class)).isSameAs(dataSource);
        assertThat(dataSource.isWrapperFor(Runnable.class)).isFalse();
    }

    /** Application code recognised by its class name, calling other code that borrows. */
    static final class Warmer {
        void warm(WatchedDataSource dataSource) throws SQLException {
            borrowFromSiteA(dataSource);
        }
    }
}
