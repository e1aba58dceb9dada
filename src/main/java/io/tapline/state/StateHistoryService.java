package io.tapline.state;

import io.tapline.state.store.StateHistoryRepository;
import io.tapline.state.store.StateRepository;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.transaction.Transactional;

import java.util.List;
import java.util.Optional;

/**
 * What a history page is read with besides {@link StateService#history}: the size of each entry,
 * and a large entry without its texts and then one side at a time ({@code api.HistoryJson}). Reads
 * only, outside any transaction of their own.
 */
@ApplicationScoped
@Transactional(Transactional.TxType.SUPPORTS)
public class StateHistoryService {

    private final StateHistoryRepository repo;

    public StateHistoryService(StateHistoryRepository repo) {
        this.repo = repo;
    }

    /** The versions and entry sizes of a page of history, newest first ({@link StateHistoryRepository#historySizes}). */
    public List<long[]> historySizes(String stateId, Long beforeVersion, int limit) {
        return repo.historySizes(stateId, beforeVersion, limit);
    }

    /** A history entry without its texts ({@link StateHistoryRepository#versionHead}). */
    public Optional<StateRepository.Version> versionHead(String stateId, long version) {
        return repo.versionHead(stateId, version);
    }

    /** One side's text of a history entry ({@link StateHistoryRepository#versionSide}). */
    public String versionSide(String stateId, long version, StateHistoryRepository.Side side) {
        return repo.versionSide(stateId, version, side);
    }
}
