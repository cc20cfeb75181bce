package dev.dbbulkhead.gate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.dbbulkhead.RejectionReason;
import dev.dbbulkhead.testing.RepositoryFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The reasons a client reads on the wire and in the meters are what the documentation says they are: each reason one
 * meaning, and a push-out never told as the entry ceiling's or a refusal on arrival's reason.
 */
class RejectionReasonsInTheDocsTests {

    private static final Pattern REASON_NAME = Pattern.compile("`([A-Z][A-Z_]+)`");

    /** The reasons a waiter whose place went to a newcomer is refused with, as the gate gives them. */
    private static final Set<RejectionReason> PUSH_OUT_REASONS = Arrays.stream(AdmissionCounts.WaitEnd.values())
            .map(AdmissionCounts.WaitEnd::displacedAs).filter(Objects::nonNull)
            .collect(Collectors.toCollection(() -> EnumSet.noneOf(RejectionReason.class)));

    @Test
    void everyPushOutHasAReasonOfItsOwnThatNoRefusalOnArrivalShares() {
        assertThat(PUSH_OUT_REASONS).containsExactlyInAnyOrder(RejectionReason.PUSHED_OUT,
                RejectionReason.OVER_FAIR_SHARE);
    }

    @Test
    void thePushOutSectionOfTheConceptsNamesTheReasonsThePushOutsAreGiven() throws IOException {
        String concepts = read("docs", "reference", "concepts.md");
        String section = between(concepts, "### When every place is taken: push-out", "\n## ");
        Matcher told = Pattern.compile("`([A-Z_]+)` when").matcher(section);
        Set<String> named = new LinkedHashSet<>();
        while (told.find()) {
            named.add(told.group(1));
        }
        assertThat(named).containsExactlyInAnyOrderElementsOf(names(PUSH_OUT_REASONS));
    }

    /**
     * Wherever the README, a how-to or the reference speaks of a push-out ("pushes out", "pushed out"), the first
     * reason it names after it, before the sentence or the parenthesis ends, is one a push-out is given.
     */
    @Test
    void theGuidesTellAPushOutByAPushOutReason() throws IOException {
        Set<String> allowed = names(PUSH_OUT_REASONS);
        Pattern pushThenReason = Pattern.compile("(?i:push(?:es|ed)?(?: [a-z]+){0,4} out)[^.;)`]*(?:`[^`]*`[^.;)`]*)*?"
                + "`([A-Z][A-Z_]+)`");
        List<String> wrong = new ArrayList<>();
        int told = 0;
        for (Path page : guides()) {
            Matcher pushOut = pushThenReason.matcher(Files.readString(page).replace('\n', ' '));
            while (pushOut.find()) {
                told++;
                if (!allowed.contains(pushOut.group(1))) {
                    wrong.add(page.getFileName() + ": " + pushOut.group());
                }
            }
        }
        assertThat(told).as("push-outs told with a reason").isGreaterThanOrEqualTo(4);
        assertThat(wrong).as("push-outs told by another reason").isEmpty();
    }

    @Test
    void theMetricsReferenceListsEveryTagValueInOrderEachWithItsReason() throws IOException {
        String metrics = read("docs", "reference", "metrics-and-observations.md");
        String row = metrics.lines().filter(line -> line.startsWith("| `db.bulkhead.rejected` ")).findFirst()
                .orElseThrow(() -> new AssertionError("no db.bulkhead.rejected row"));
        Matcher entry = Pattern.compile("`([a-z_]+)`(?: \\(([^()]*(?:\\([^()]*\\)[^()]*)*)\\))?").matcher(
                row.substring(row.indexOf("by `reason`:") + "by `reason`:".length()));
        List<String> tags = new ArrayList<>();
        while (entry.find()) {
            tags.add(entry.group(1));
            String meaning = entry.group(2);
            Matcher named = REASON_NAME.matcher(meaning == null ? "" : meaning);
            while (named.find()) {
                assertThat(RejectionReason.valueOf(named.group(1)).tagValue()).as("the reason named for `%s`",
                        entry.group(1)).isEqualTo(entry.group(1));
            }
        }
        assertThat(tags).containsExactlyElementsOf(
                Arrays.stream(RejectionReason.values()).map(RejectionReason::tagValue).toList());
    }

    @Test
    void theReadmeAndTheEndpointReferenceNameEveryReason() throws IOException {
        String readme = between(read("README.md"), "## When the gate is full", "\n## ");
        assertThat(names(readme)).containsAll(names(EnumSet.allOf(RejectionReason.class)));
        String endpoint = read("docs", "reference", "endpoint.md");
        String rejected = between(endpoint, "\"rejected\":{", "}");
        for (RejectionReason reason : RejectionReason.values()) {
            assertThat(rejected).as("the endpoint's sample counts %s", reason).contains("\"" + reason.tagValue() + "\":");
        }
    }

    private static Set<String> names(Set<RejectionReason> reasons) {
        return reasons.stream().map(Enum::name).collect(Collectors.toCollection(LinkedHashSet::new));
    }

    private static Set<String> names(String text) {
        Set<String> names = new LinkedHashSet<>();
        Matcher name = REASON_NAME.matcher(text);
        while (name.find()) {
            names.add(name.group(1));
        }
        return names;
    }

    private static String between(String text, String start, String end) {
        int from = text.indexOf(start);
        assertThat(from).as("'%s' in the page", start).isNotNegative();
        int to = text.indexOf(end, from + start.length());
        return text.substring(from, to < 0 ? text.length() : to);
    }

    /** README.md, the how-tos and the reference: the pages a user reads for what an answer means. */
    private static List<Path> guides() throws IOException {
        Path root = repository();
        List<Path> pages = new ArrayList<>(List.of(root.resolve("README.md")));
        for (Path folder : List.of(root.resolve("docs/how-to"), root.resolve("docs/reference"))) {
            try (Stream<Path> files = Files.list(folder)) {
                files.filter(file -> file.toString().endsWith(".md")).sorted().forEach(pages::add);
            }
        }
        return pages;
    }

    private static String read(String first, String... more) throws IOException {
        return Files.readString(repository().resolve(Path.of(first, more)));
    }

    private static Path repository() {
        return RepositoryFiles.path("docs").getParent();
    }
}
