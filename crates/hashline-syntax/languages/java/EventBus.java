/*
 * Copyright the hashline authors. Licensed under the Apache License 2.0.
 */
package org.example.events;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A synchronous, type-keyed event bus.
 *
 * <p>Subscribers register for an event class and receive every event of that
 * class or a subclass, in order of priority.
 *
 * @param <E> the root type of the events this bus carries
 */
@SuppressWarnings("unchecked")
public final class EventBus<E> {

    /** The priority subscribers get when none is given. */
    public static final int DEFAULT_PRIORITY = 0;

    private static final String LOG_PREFIX = "[bus] ";

    private final Map<Class<?>, List<Subscription<? extends E>>> byType = new ConcurrentHashMap<>();
    private final List<DeadEventHandler> deadHandlers = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    /**
     * Marks a method as a handler for {@link EventBus#register(Object)}.
     * The method must take exactly one parameter, the event.
     */
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.METHOD)
    public @interface Subscribe {
        /** Higher runs first. */
        int priority() default DEFAULT_PRIORITY;
    }

    /** How an event was delivered, for the dead-event handlers and metrics. */
    public enum Delivery {
        /** At least one subscriber received it. */
        DELIVERED("delivered"),
        /** No subscriber matched its type. */
        DEAD("dead"),
        /** A subscriber threw; later ones still ran. */
        FAILED("failed");

        private final String label;

        Delivery(String label) {
            this.label = label;
        }

        /** The lower-case name used in logs. */
        public String label() {
            return label;
        }
    }

    /** Told about events that no subscriber wanted. */
    @FunctionalInterface
    public interface DeadEventHandler {
        void onDeadEvent(Object event);

        /** A handler that ignores dead events. */
        static DeadEventHandler ignoring() {
            return event -> {};
        }
    }

    /**
     * One registered subscriber.
     *
     * @param type the event class it listens for
     * @param handler what to call
     * @param priority higher runs first
     */
    public record Subscription<T>(Class<T> type, Consumer<? super T> handler, int priority)
            implements Comparable<Subscription<?>> {

        public Subscription {
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(handler, "handler");
        }

        @Override
        public int compareTo(Subscription<?> other) {
            return Integer.compare(other.priority, priority);
        }
    }

    /** Thrown by {@link #post(Object)} after {@link #close()}. */
    public static class ClosedException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        public ClosedException() {
            super("event bus is closed");
        }
    }

    /** Makes an empty bus. */
    public EventBus() {
        this.closed = false;
    }

    /**
     * Subscribes {@code handler} to events of {@code type}.
     *
     * @return the subscription, for {@link #unsubscribe(Subscription)}
     */
    public <T extends E> Subscription<T> subscribe(Class<T> type, Consumer<? super T> handler) {
        return subscribe(type, handler, DEFAULT_PRIORITY);
    }

    /** Subscribes with an explicit priority; higher runs first. */
    public synchronized <T extends E> Subscription<T> subscribe(
            Class<T> type, Consumer<? super T> handler, int priority) {
        Subscription<T> subscription = new Subscription<>(type, handler, priority);
        List<Subscription<? extends E>> list = byType.computeIfAbsent(type, k -> new ArrayList<>());
        list.add(subscription);
        list.sort(null);
        return subscription;
    }

    /** Removes a subscription; returns whether it was registered. */
    public synchronized boolean unsubscribe(Subscription<?> subscription) {
        List<Subscription<? extends E>> list = byType.get(subscription.type());
        return list != null && list.remove(subscription);
    }

    /** Adds a handler for events nobody subscribed to. */
    public void onDeadEvent(DeadEventHandler handler) {
        deadHandlers.add(handler);
    }

    /**
     * Delivers {@code event} to every matching subscriber, highest priority first.
     *
     * @throws ClosedException if the bus was closed
     */
    public Delivery post(E event) {
        if (closed) {
            throw new ClosedException();
        }
        boolean delivered = false;
        boolean failed = false;
        for (Class<?> type = event.getClass(); type != null; type = type.getSuperclass()) {
            for (Subscription<? extends E> s : byType.getOrDefault(type, List.of())) {
                try {
                    ((Consumer<Object>) s.handler()).accept(event);
                    delivered = true;
                } catch (RuntimeException e) {
                    failed = true;
                    System.err.println(LOG_PREFIX + "subscriber failed: " + e);
                }
            }
        }
        if (!delivered) {
            deadHandlers.forEach(h -> h.onDeadEvent(event));
            return Delivery.DEAD;
        }
        return failed ? Delivery.FAILED : Delivery.DELIVERED;
    }

    /** Stops the bus; later posts throw. */
    public void close() {
        closed = true;
        byType.clear();
    }

    @Override
    public String toString() {
        return LOG_PREFIX + byType.size() + " event types";
    }

    /** Counts deliveries by outcome; attach with {@link #subscribe}. */
    public static final class Metrics {
        private final Map<Delivery, Integer> counts = new ConcurrentHashMap<>();

        /** Records one delivery. */
        public void record(Delivery delivery) {
            counts.merge(delivery, 1, Integer::sum);
        }

        public int count(Delivery delivery) {
            return counts.getOrDefault(delivery, 0);
        }

        /** A snapshot of the counters, safe to keep. */
        public Map<Delivery, Integer> snapshot() {
            return Map.copyOf(counts);
        }
    }

    /** Events the bus itself posts about its own life. */
    public sealed interface Lifecycle permits Lifecycle.Started, Lifecycle.Stopped {
        /** The bus was created. */
        record Started(long at) implements Lifecycle {}

        /** The bus was closed. */
        record Stopped(long at, String reason) implements Lifecycle {
            Stopped {
                reason = reason == null ? "" : reason;
            }
        }
    }
}
