/**
 * The server's exit status for a start-up failure that a restart cannot fix (EX_CONFIG of sysexits.h): bad
 * configuration, the port in use, the data folder held by another server. The supervisor does not restart a
 * server that exits with it: it exits at once with the same status (the server printed why on stderr).
 */
export const EXIT_FATAL_CONFIG = 78;
