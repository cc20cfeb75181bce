package dev.dbbulkhead.testing.apifixture;

import java.util.List;

/** Nested types: public and protected ones are API, listed as their own types; private ones are not. */
public abstract class Outer<E> {

    protected abstract List<E> elements();

    public static final class Builder {

        public Builder add(Object element) {
            return this;
        }
    }

    protected static class Extension {
    }

    public class Cursor {

        public Cursor(int position) {
        }

        public E current() {
            return null;
        }
    }

    public interface Listener {

        void changed();
    }

    private static class Secret {

        public void notShown() {
        }
    }
}
