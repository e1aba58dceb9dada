package io.tapline.state.store;

import io.tapline.state.model.MeltanoState;

import java.util.Optional;

/**
 * The port through which {@link StateWriter} keeps the shared Meltano directory in step with the
 * store (implemented by {@code mirror.StateMirror}). For each unit of work
 * ({@link StateWriter#transaction}) the writer, in this order:
 * <ol>
 *   <li>before its transaction, {@link #hold}s each state ID's mirror file (its lock file taken, as
 *   a Meltano writer takes it over its read-modify-write);</li>
 *   <li>in the transaction, under the ID's advisory lock, asks {@link Hold#outsideChange} whether
 *   the file was changed by someone else, stores that change itself (source MELTANO) before
 *   anything else, and reports it with {@link Hold#imported};</li>
 *   <li>after the commit, calls {@link Hold#committed}: the file is rewritten with what is stored;</li>
 *   <li>in every case (commit or rollback) {@link Hold#close}s the hold, which lets the lock file go.</li>
 * </ol>
 * So no Meltano write can come between a change and the file that shows it, and nothing the writer
 * does is hidden in a transaction callback.
 */
public interface MirrorWrites {

    /** No mirror: every hold does nothing. */
    MirrorWrites NONE = (stateId, source) -> Hold.NONE;

    /**
     * Takes the state ID's mirror file for a unit of work; the caller closes the hold.
     *
     * @param stateId a state ID that can be a directory name
     * @param source who writes (a run's checkpoint is never refused for a held lock file)
     * @return the hold, {@link Hold#NONE} when there is nothing to hold (no mirror, the directory gone)
     * @throws io.tapline.common.error.UnavailableException for an edit while another writer (Meltano)
     *     holds the lock file past the lock timeout
     */
    Hold hold(String stateId, Origin.Source source);

    /**
     * A change of the file made outside Tapline, for the writer to store first.
     *
     * @param record the record the file holds; null when the file was removed (the ID is cleared)
     * @param origin the history origin of the import (source MELTANO)
     */
    record OutsideChange(MeltanoState record, Origin origin) {
    }

    /** One state ID's mirror file held for a unit of work. */
    interface Hold extends AutoCloseable {

        /** A hold of nothing. */
        Hold NONE = new Hold() {
        };

        /**
         * In the writer's transaction, under the state ID's advisory lock: the change someone else
         * made to the file since Tapline last wrote or accepted it; empty when there is none (or the
         * file is unreadable: then it is set aside, never imported).
         */
        default Optional<OutsideChange> outsideChange() {
            return Optional.empty();
        }

        /**
         * In the same transaction: the writer stored {@code change}.
         *
         * @param version the version it made, or the version kept when the record was already stored
         * @param changed false when the file held what was stored already
         */
        default void imported(OutsideChange change, long version, boolean changed) {
        }

        /** After the transaction committed: writes what is now stored into the file. Never throws. */
        default void committed() {
        }

        /** Lets the file go (after a commit or a rollback). Never throws. */
        @Override
        default void close() {
        }
    }
}
