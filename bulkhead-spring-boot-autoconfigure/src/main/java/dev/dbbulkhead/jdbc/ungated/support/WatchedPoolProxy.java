package dev.dbbulkhead.jdbc.ungated.support;

import dev.dbbulkhead.jdbc.ungated.WatchedDataSource;
import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.cglib.core.ClassLoaderAwareGeneratorStrategy;
import org.springframework.cglib.core.SpringNamingPolicy;
import org.springframework.cglib.proxy.Callback;
import org.springframework.cglib.proxy.CallbackFilter;
import org.springframework.cglib.proxy.Dispatcher;
import org.springframework.cglib.proxy.Enhancer;
import org.springframework.cglib.proxy.Factory;
import org.springframework.cglib.proxy.FixedValue;
import org.springframework.cglib.proxy.MethodInterceptor;
import org.springframework.cglib.proxy.MethodProxy;
import org.springframework.objenesis.SpringObjenesis;
import org.springframework.util.ReflectionUtils;

/**
 * The watch in front of a pool, made a subclass of the pool's own class so that the DataSource bean keeps its type:
 * injection by class, {@code getBean}, casts and {@code instanceof} see a {@code HikariDataSource} (or the
 * application's own subclass) as without the watch. {@code getConnection()} goes to the pool's
 * {@link WatchedDataSource}; {@code unwrap} and {@code isWrapperFor} answer for the bean first, so that unwrapping to
 * the pool's class keeps borrows watched; {@code equals} and {@code hashCode} are the bean's identity; every other
 * method runs on the pool object itself, so its state, MXBeans, setters and {@code close} are the pool's own.
 *
 * <p>The subclass is made without running a constructor, so its own fields are not the pool's. Code that reads the
 * pool's fields by reflection (Spring Boot's pool metadata reads HikariCP's private {@code pool} field) finds a copy,
 * taken when the pool is watched and again after its first borrow, when a lazily started pool has just started.
 */
final class WatchedPoolProxy {

    private static final Log logger = LogFactory.getLog(WatchedPoolProxy.class);

    /** Index of the callback that runs a method on the pool object. */
    private static final int POOL = 0;
    /** Index of the callback that borrows through the watch: {@code getConnection()}. */
    private static final int BORROW = 1;
    /** Index of the callback for what the bean answers itself. */
    private static final int OWN = 2;

    private static final Class<?>[] CALLBACK_TYPES = {Dispatcher.class, FixedValue.class, MethodInterceptor.class};

    /** One instance, so that the generated class of a pool class is made once and reused (the filter is its key). */
    private static final CallbackFilter ROUTES = new Routes();

    private static final SpringObjenesis OBJENESIS = new SpringObjenesis();

    private WatchedPoolProxy() {
    }

    /**
     * Why no subclass of {@code poolClass} could stand in for the pool and keep its type and behaviour; null when one
     * can.
     */
    static @Nullable String whyNotSubclassable(Class<?> poolClass) {
        if (Proxy.isProxyClass(poolClass)) {
            return "it is a JDK proxy, whose class no other class can extend";
        }
        if (Modifier.isFinal(poolClass.getModifiers())) {
            return "its class is final";
        }
        if (poolClass.isSealed()) {
            return "its class is sealed";
        }
        if (poolClass.isHidden()) {
            return "its class is hidden";
        }
        boolean constructible = false;
        for (Constructor<?> constructor : poolClass.getDeclaredConstructors()) {
            constructible |= !Modifier.isPrivate(constructor.getModifiers());
        }
        if (!constructible) {
            return "its class has no constructor a subclass could call";
        }
        for (Method method : poolClass.getMethods()) {
            if (Modifier.isFinal(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                    && method.getDeclaringClass() != Object.class) {
                // A final method would run on the stand-in's copy of the pool's fields, not on the pool.
                return "its method " + method.getName() + " is final";
            }
        }
        return null;
    }

    /**
     * A subclass of {@code pool}'s class whose borrows go to {@code watch}, and everything else to {@code pool}.
     *
     * @param pool  the pool, of a class {@link #whyNotSubclassable} accepts
     * @param watch the watch in front of it
     * @throws RuntimeException CGLIB's {@code CodeGenerationException}, when the subclass cannot be made (in a native
     *                          image, say); a {@link LinkageError} when it cannot be defined
     */
    static DataSource proxy(DataSource pool, WatchedDataSource watch) {
        Class<?> poolClass = pool.getClass();
        Enhancer enhancer = new Enhancer();
        enhancer.setSuperclass(poolClass);
        enhancer.setClassLoader(poolClass.getClassLoader());
        enhancer.setNamingPolicy(SpringNamingPolicy.INSTANCE);
        enhancer.setStrategy(new ClassLoaderAwareGeneratorStrategy(poolClass.getClassLoader()));
        enhancer.setCallbackFilter(ROUTES);
        enhancer.setCallbackTypes(CALLBACK_TYPES);
        Class<?> proxyClass = enhancer.createClass();
        DataSource proxy = (DataSource) OBJENESIS.newInstance(proxyClass, enhancer.getUseCache());
        copyFields(pool, proxy);
        Factory factory = (Factory) proxy;
        // A method reference, so that the steady borrow adds no frame and no read beyond the callback field.
        FixedValue borrow = watch::getConnection;
        FixedValue firstBorrow = new FirstBorrow(pool, proxy, watch, borrow);
        factory.setCallbacks(new Callback[] {(Dispatcher) () -> pool, firstBorrow, new OwnAnswers(pool, watch)});
        return proxy;
    }

    /** Copies the pool's fields to its stand-in, for code that reads them by reflection. */
    private static void copyFields(DataSource pool, DataSource proxy) {
        try {
            ReflectionUtils.shallowCopyFieldState(pool, proxy);
        } catch (RuntimeException inaccessible) {
            // A pool in a module that does not open its package: only readers of its fields miss the copy.
            if (logger.isDebugEnabled()) {
                logger.debug("Could not copy the fields of " + pool.getClass().getName() + " to the watched bean: "
                        + inaccessible);
            }
        }
    }

    /**
     * The first borrows: once a borrow has succeeded (a lazily started pool has then started), the pool's fields are
     * copied again and the steady borrow takes this one's place.
     */
    private static final class FirstBorrow implements FixedValue {

        private final DataSource pool;
        private final DataSource proxy;
        private final WatchedDataSource watch;
        private final FixedValue steady;
        private final AtomicBoolean started = new AtomicBoolean();

        FirstBorrow(DataSource pool, DataSource proxy, WatchedDataSource watch, FixedValue steady) {
            this.pool = pool;
            this.proxy = proxy;
            this.watch = watch;
            this.steady = steady;
        }

        @Override
        public Object loadObject() throws Exception {
            Connection connection = watch.getConnection();
            if (started.compareAndSet(false, true)) {
                copyFields(pool, proxy);
                ((Factory) proxy).setCallback(BORROW, steady);
            }
            return connection;
        }
    }

    /** What the bean answers itself rather than the pool. */
    private static final class OwnAnswers implements MethodInterceptor {

        private final DataSource pool;
        private final WatchedDataSource watch;

        OwnAnswers(DataSource pool, WatchedDataSource watch) {
            this.pool = pool;
            this.watch = watch;
        }

        @Override
        public @Nullable Object intercept(Object proxy, Method method, Object[] args, MethodProxy methodProxy)
                throws Throwable {
            return switch (method.getName()) {
                case "getConnection" -> watch.getConnection((String) args[0], (String) args[1]);
                case "unwrap" -> ((Class<?>) args[0]).isInstance(proxy) ? proxy : methodProxy.invoke(pool, args);
                case "isWrapperFor" -> ((Class<?>) args[0]).isInstance(proxy) || (Boolean) methodProxy.invoke(pool,
                        args);
                case "equals" -> proxy == args[0];
                case "hashCode" -> System.identityHashCode(proxy);
                default -> methodProxy.invoke(pool, args);
            };
        }
    }

    /** Which callback answers each method of the generated class. */
    private static final class Routes implements CallbackFilter {

        @Override
        public int accept(Method method) {
            Class<?>[] parameters = method.getParameterTypes();
            return switch (method.getName()) {
                case "getConnection" -> parameters.length == 0 ? BORROW
                        : parameters.length == 2 && parameters[0] == String.class && parameters[1] == String.class
                                ? OWN : POOL;
                case "unwrap", "isWrapperFor" -> parameters.length == 1 && parameters[0] == Class.class ? OWN : POOL;
                case "equals" -> parameters.length == 1 && parameters[0] == Object.class ? OWN : POOL;
                case "hashCode" -> parameters.length == 0 ? OWN : POOL;
                default -> POOL;
            };
        }
    }
}
