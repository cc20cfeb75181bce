package dev.dbbulkhead.gate;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;

/**
 * What the operations a thread asks for are, to a workload with {@link AdmissionRules}: their {@link Criticality} and
 * their key (the tenant they serve), whose fair share of the workload they count against. Bound to a thread for a
 * scope ({@link #bind()}), as a {@link RequestDeadline} is, so that the code that knows the request (a filter, an
 * annotation) tells the gate without the work passing it through every call. Immutable.
 *
 * <p>A workload without admission rules never reads it: its admissions are as they were. Operations of a thread with
 * nothing bound are {@link Criticality#DEFAULT} and have no key (under fair shares,
 * one flow with every other operation without one: {@link AdmissionRules#keylessKey()}). Like a deadline, the class
 * stays with its thread: a thread started inside the scope, or a task handed to an executor, does not carry it
 * unless wrapped ({@link #wrap(Runnable)}, {@link #wrap(Callable)}).
 */
public final class OperationClass {

    /**
     * The longest key kept: 64 characters. A key comes from outside (a header, a form field, a path), and it becomes a
     * meter tag and a line of the endpoint; a longer one is shortened as {@link #of(Criticality, String)} says.
     */
    public static final int MAX_KEY_LENGTH = 64;

    /** Characters of a long key kept as they are; a separator and 16 hex digits of its hash make up the rest. */
    private static final int KEPT_PREFIX = MAX_KEY_LENGTH - 17;

    /** The class of a thread with nothing bound. */
    public static final OperationClass UNCLASSIFIED = new OperationClass(Criticality.DEFAULT, null);

    private final Criticality criticality;
    private final @Nullable String key;

    private OperationClass(Criticality criticality, @Nullable String key) {
        this.criticality = criticality;
        this.key = key;
    }

    /** Operations of {@code criticality}, with no key. */
    public static OperationClass of(Criticality criticality) {
        return new OperationClass(Objects.requireNonNull(criticality, "criticality"), null);
    }

    /**
     * Operations of {@code criticality} for {@code key}. Any string will do — the gate keeps a fixed-size table, not
     * the keys — but keys that mean one tenant should be equal strings. A key longer than {@value #MAX_KEY_LENGTH}
     * characters is kept as its first 47 characters, {@code ~} and 16 hex digits of the SHA-256 of the whole key
     * ({@link #boundedKey}): the same long key is always the same short one, two long keys alike in their first 47
     * characters stay apart, and no meter tag or endpoint line holds more than {@value #MAX_KEY_LENGTH} characters of
     * it.
     */
    public static OperationClass of(Criticality criticality, String key) {
        return new OperationClass(Objects.requireNonNull(criticality, "criticality"),
                boundedKey(Objects.requireNonNull(key, "key")));
    }

    /**
     * {@code key} as the gates keep it: itself when at most {@value #MAX_KEY_LENGTH} characters long, otherwise its
     * first 47 characters (46 when the 47th would split a surrogate pair), {@code ~} and the first 16 hex digits of
     * the SHA-256 of its UTF-8 bytes.
     */
    public static String boundedKey(String key) {
        if (key.length() <= MAX_KEY_LENGTH) {
            return key;
        }
        int kept = Character.isHighSurrogate(key.charAt(KEPT_PREFIX - 1)) ? KEPT_PREFIX - 1 : KEPT_PREFIX;
        byte[] digest;
        try {
            digest = MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException impossible) {
            // Every Java platform must provide SHA-256.
            throw new IllegalStateException(impossible);
        }
        return key.substring(0, kept) + "~" + HexFormat.of().formatHex(digest, 0, 8);
    }

    /** The class bound to the current thread, if any. */
    public static Optional<OperationClass> current() {
        return Optional.ofNullable(ThreadRecord.current().operationClass());
    }

    /** The criticality. */
    public Criticality criticality() {
        return criticality;
    }

    /** The key, if any. */
    public Optional<String> key() {
        return Optional.ofNullable(key);
    }

    /** The key, or {@code null}: for the gate, which must not allocate an {@link Optional} per admission. */
    @Nullable String keyOrNull() {
        return key;
    }

    /**
     * Binds this class to the current thread until the returned scope is closed, by this thread; inside a scope
     * already bound it replaces the outer class, which closing the scope restores.
     */
    public Scope bind() {
        ThreadRecord record = ThreadRecord.current();
        Scope scope = new Scope(record, record.operationClass());
        record.operationClass(this);
        return scope;
    }

    /** {@code task}, run as this class on whichever thread runs it. */
    public Runnable wrap(Runnable task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    /** {@code task}, run as this class on whichever thread runs it. */
    public <T> Callable<T> wrap(Callable<T> task) {
        return ScopedTasks.wrap(() -> bind()::close, task);
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof OperationClass that && criticality == that.criticality && Objects.equals(key, that.key);
    }

    @Override
    public int hashCode() {
        return Objects.hash(criticality, key);
    }

    @Override
    public String toString() {
        return "OperationClass[" + criticality + (key == null ? "" : ", key=" + key) + "]";
    }

    /** The span of a {@link #bind()}: closing it, on the thread that bound it, restores what was bound before. */
    public static final class Scope extends BindingScope {

        private final ThreadRecord record;
        private final @Nullable OperationClass previous;

        private Scope(ThreadRecord record, @Nullable OperationClass previous) {
            this.record = record;
            this.previous = previous;
        }

        @Override
        String binding() {
            return "An operation class";
        }

        @Override
        void restore() {
            record.operationClass(previous);
        }
    }
}
