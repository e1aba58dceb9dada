package io.tapline.run;

/** Fired synchronously inside the transaction that gives a run its terminal status. Observers may write in that transaction; read the run with a fresh query. */
public record RunEnded(java.util.UUID runId) { }
