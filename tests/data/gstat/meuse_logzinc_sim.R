# Moments of gstat's conditional simulation of log(zinc) on the Meuse grid:
# meuse_logzinc_sim_nmax20.csv (x, y, mean, var over the realisations).
#   Rscript tests/data/gstat/meuse_logzinc_sim.R [N]     (N = 1000)
# Sequential Gaussian simulation by gstat's krige(nsim = N, nmax = 20), the
# ordinary-kriging neighbourhood of the 20 nearest (data and simulated
# nodes), with gstat's own fit of the log(zinc) variogram
# (meuse_logzinc_fit.csv), on the sp package's 40 m meuse.grid.
suppressMessages({library(sp); library(gstat)})
data(meuse); data(meuse.grid)
coordinates(meuse) <- ~x+y
coordinates(meuse.grid) <- ~x+y
args <- commandArgs(TRUE)
N <- if (length(args)) as.integer(args[1]) else 1000L
m <- vgm(0.590610542350093, "Sph", 897.041171303281, 0.0506652166361623)
set.seed(17)
s <- krige(log(zinc)~1, meuse, meuse.grid, model = m, nmax = 20, nsim = N, debug.level = 0)
v <- as.matrix(s@data)
out <- data.frame(x = coordinates(s)[, 1], y = coordinates(s)[, 2], mean = rowMeans(v), var = apply(v, 1, var))
write.csv(out, "meuse_logzinc_sim_nmax20.csv", row.names = FALSE)
