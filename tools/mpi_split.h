/* mpi_split.h — core/split.h over MPI, for the tools' MPI builds
 * (bin/mpi/trv-*, docs/cluster.md): blocks travel with MPI_Send/MPI_Recv
 * to rank 0 of MPI_COMM_WORLD, agree is an MPI_Allreduce (max). */
#ifndef TOOL_MPI_SPLIT_H
#define TOOL_MPI_SPLIT_H

#include "core/split.h"

/* MPI_Init and *s for this rank. */
void mpi_split_start(int *argc, char ***argv, trv_split *s);
/* Every rank waits for the others (rank 0 has finished its outputs), then
 * MPI_Finalize; returns code. */
int mpi_split_end(int code);

#endif
