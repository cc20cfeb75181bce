package dev.dbbulkhead.observation;

import io.micrometer.common.docs.KeyName;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;

/**
 * The two observations of every admitted operation and their keys. Each has a convention of its own that an
 * application replaces with a bean of the convention's type.
 */
public enum BulkheadObservationDocumentation implements ObservationDocumentation {

    /**
     * The wait for an execution permit, from admission until the permit is had or given up; named
     * {@value BulkheadObservations#WAIT} by default. A refusal of a full gate starts none.
     */
    WAIT {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultBulkheadWaitObservationConvention.class;
        }

        @Override
        public KeyName[] getHighCardinalityKeyNames() {
            return HighCardinalityKeys.values();
        }
    },

    /**
     * An admitted operation holding its execution permit — connection request, transaction and cleanup; named
     * {@value BulkheadObservations#EXECUTION} by default. In scope while the operation runs.
     */
    EXECUTION {
        @Override
        public Class<? extends ObservationConvention<? extends Observation.Context>> getDefaultConvention() {
            return DefaultBulkheadExecutionObservationConvention.class;
        }
    };

    @Override
    public KeyName[] getLowCardinalityKeyNames() {
        return LowCardinalityKeys.values();
    }

    /**
     * The keys of the wait's span only. High-cardinality keys reach traces, not meters: the timer a meter handler
     * makes of the wait keeps the same tags on every wait, and {@code db.bulkhead.queue.shed} counts the sheds.
     */
    public enum HighCardinalityKeys implements KeyName {

        /** {@code true} when the CoDel queue discipline refused the wait because the queue stood; absent otherwise. */
        SHED {
            @Override
            public String asString() {
                return "shed";
            }
        }
    }

    /** The low-cardinality keys of both observations. */
    public enum LowCardinalityKeys implements KeyName {

        /** The workload's name. */
        WORKLOAD {
            @Override
            public String asString() {
                return "workload";
            }
        },

        /**
         * How it ended: {@code admitted}, {@code timeout} or {@code interrupted} for the wait; {@code committed},
         * {@code rolled_back}, {@code failed} or {@code unknown} for the execution. Set when it stops.
         */
        OUTCOME {
            @Override
            public String asString() {
                return "outcome";
            }
        }
    }
}
