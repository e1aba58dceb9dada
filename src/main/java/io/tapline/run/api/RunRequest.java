package io.tapline.run.api;

import java.util.List;

/**
 * Body of {@code POST /api/v1/pipelines/{name}/runs}; every field is optional.
 *
 * @param fullRefresh ignore stored bookmarks: the tap gets no state file, and the new state is
 *     merged over the stored one (Meltano's {@code --full-refresh})
 * @param fullRefreshStreams drop only these streams' bookmarks from the tap's state file; the new
 *     state is merged, so other streams keep theirs
 * @param stateStrategy auto, merge or overwrite for this run (default: the pipeline's)
 * @param force cancel a queued run (such as a pending retry) or fail a run whose heartbeat is lost,
 *     then start; a live running run is never doubled (409)
 * @param refreshCatalog run {@code --discover} again even when the catalog cache holds a catalog
 *     for the extractor's current key (the new catalog replaces the cached one); a stored user
 *     catalog still wins
 */
public record RunRequest(Boolean fullRefresh, List<String> fullRefreshStreams, String stateStrategy, Boolean force,
                         Boolean refreshCatalog) {
}
