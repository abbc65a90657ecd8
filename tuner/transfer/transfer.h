/* transfer.h - the commands that move results between machines: mmtune export (a
 * database's results as CSV or JSON), import (such files into a database) and merge
 * (databases into one). */
#ifndef MMT_TRANSFER_H
#define MMT_TRANSFER_H

/* Whether argv[1] names one of these commands. */
int mmt_transfer_command(const char *name);

/* Runs the command argv[1] with its options; returns the exit code (0 ok, 2 bad input,
 * 1 failure). */
int mmt_transfer_main(int argc, char **argv);

/* For every command that reads or writes the default database (no --db): its folder
 * checked whole (store.h, mmt_store_default_dir_check), made private where missing; 0, or
 * 2 with the reason on stderr. */
int mmt_default_db_checked(void);

#endif
