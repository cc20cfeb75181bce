package dev.dbbulkhead.fleettests;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sends {@code SIGSTOP} and {@code SIGCONT} to the instances, which {@link Process} cannot. One shell runs for the whole
 * test and sends each signal with its built-in {@code kill}: no process is started per signal, so a signal lands
 * within a fraction of a millisecond of the decision, as freezing an instance inside its renewal transaction needs.
 */
final class Signals implements AutoCloseable {

    private static final String DONE = "signalled";

    private final Process shell;
    private final Writer commands;
    private final BufferedReader answers;
    private final ReentrantLock lock = new ReentrantLock();

    Signals() {
        try {
            shell = new ProcessBuilder("sh").redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start the shell that sends signals", e);
        }
        commands = shell.outputWriter(StandardCharsets.US_ASCII);
        answers = shell.inputReader(StandardCharsets.US_ASCII);
    }

    /** Stops {@code pid} as a long GC pause, a frozen container or a suspended VM would. */
    void stop(long pid) {
        send("STOP", pid);
    }

    /** Lets a stopped {@code pid} run on. */
    void resume(long pid) {
        send("CONT", pid);
    }

    @Override
    public void close() throws InterruptedException {
        try {
            commands.close();
        } catch (IOException ignored) {
            // The shell is gone already.
        }
        if (!shell.waitFor(5, TimeUnit.SECONDS)) {
            shell.destroyForcibly().waitFor();
        }
    }

    /** Returns once the shell has sent the signal. */
    private void send(String signal, long pid) {
        lock.lock();
        try {
            commands.write("kill -" + signal + " " + pid + "; echo " + DONE + "\n");
            commands.flush();
            String answer = answers.readLine();
            if (!DONE.equals(answer)) {
                throw new IllegalStateException("kill -" + signal + " " + pid + " answered " + answer);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not send SIG" + signal + " to " + pid, e);
        } finally {
            lock.unlock();
        }
    }
}
