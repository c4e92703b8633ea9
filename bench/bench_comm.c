/* bench_comm.c — placeholder while the exec area lands. */
int main(void) { return 0; }
