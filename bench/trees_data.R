# Tables for the boosted trees benchmark of bench/trees_hist.R.
# Source this file; nothing runs on sourcing. Each synthetic generator takes
# the number of rows and a `seed` for the rows: the model that makes the label
# (per-level effects, coefficients, the intercept that sets the positive
# rate) is drawn under a fixed seed of its own, so a training table (seed 1)
# and a test table (seed 2) come from the same model. Every generator leaves
# R's random number generator wherever its last draw left it.

# A seeded draw that does not disturb the caller's stream: runs `expr` with
# `seed` and restores the generator's previous state afterwards.
with_seed <- function(seed, expr) {
  old <- if (exists(".Random.seed", envir = globalenv(), inherits = FALSE)) get(".Random.seed", envir = globalenv())
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed)
  expr
}

# Zipf-like frequencies over k levels: p_i proportional to 1 / i^s.
zipf_prob <- function(k, s = 1) {
  p <- 1 / seq_len(k)^s
  p / sum(p)
}

# A factor of n draws from `levels` with probabilities `prob` (built from the
# integer codes, without a character vector of n strings).
draw_factor <- function(n, levels, prob = NULL) {
  structure(sample.int(length(levels), n, replace = TRUE, prob = prob), levels = levels, class = "factor")
}

# The intercept b such that mean(plogis(b + eta)) equals `rate`.
intercept_for_rate <- function(eta, rate) {
  stats::uniroot(function(b) mean(stats::plogis(b + eta)) - rate, c(-30, 30), tol = 1e-8)$root
}

# ---------------------------------------------------------------------------
# (a) The shape of the airline table of the GBM-perf benchmark.
#
# Columns: 5 numeric ones, DepTime (hhmm, 0 to 2359, most departures between
# 6:00 and 22:00), Distance (miles, log-normal around 600 clipped to 30..5000:
# a long right tail), Month (1..12), DayofMonth (1..31, the last three days
# rarer) and DayOfWeek (1..7), all whole numbers held as doubles; and 3
# factors: UniqueCarrier (22 levels, Zipf frequencies, exponent 0.8), Origin
# and Dest (the same 290 airport codes, Zipf frequencies with exponent 1.1,
# each in its own order of popularity).
#
# The label dep_delayed_15min ("Y" / "N", about 19% "Y", a factor with levels
# N, Y) is a Bernoulli draw from plogis(eta), with eta the sum of
# - a per-level effect of each factor, drawn N(0, 0.35) for the carriers,
#   N(0, 0.6) for the origins and N(0, 0.45) for the destinations: many
#   levels with effects of both signs, so that a split grouping a set of
#   Origin (or Dest) levels is worth a lot, and one-hot columns each carry
#   little;
# - a nonlinear effect of the hour of departure: low before 6:00, rising
#   along a logistic curve through the afternoon, plus a bump around 17:00;
# - a seasonal effect of Month (cosine peaking in July plus December) and a
#   small one of DayOfWeek (Thursday and Friday worse);
# - a small negative effect of log(Distance);
# - Gaussian noise with sd 0.5 (latent, on top of the Bernoulli draw);
# - the intercept that makes the positive rate 19% (found on 200,000 rows
#   drawn with the model's seed).
gbmperf_model <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    cache <<- with_seed(20240053, {
      airports <- sprintf("A%03d", seq_len(290))
      carriers <- sprintf("C%02d", seq_len(22))
      m <- list(carriers = carriers, airports = airports,
                carrier_prob = zipf_prob(22, 0.8)[sample(22)],
                origin_prob = zipf_prob(290, 1.1)[sample(290)],
                dest_prob = zipf_prob(290, 1.1)[sample(290)],
                carrier_eff = stats::rnorm(22, sd = 0.35),
                origin_eff = stats::rnorm(290, sd = 0.6),
                dest_eff = stats::rnorm(290, sd = 0.45),
                dow_eff = c(0, -0.05, 0, 0.15, 0.2, -0.15, -0.05))
      m$intercept <- 0
      cal <- gbmperf_rows(200000L, m, noise = TRUE)
      m$intercept <- intercept_for_rate(cal$eta, 0.19)
      m
    })
    cache
  }
})

# The rows of the table (and eta, the label's logit) under model `m`.
gbmperf_rows <- function(n, m, noise = TRUE) {
  hour <- pmin(pmax(stats::rnorm(n, 13.5, 4.2), 0), 23.98)
  dep_time <- floor(hour) * 100 + floor((hour %% 1) * 60)
  distance <- round(pmin(pmax(stats::rlnorm(n, log(600), 0.75), 30), 5000))
  month <- sample.int(12L, n, replace = TRUE, prob = c(8, 7.5, 8.5, 8.3, 8.5, 8.6, 8.9, 8.9, 8, 8.4, 8, 8.3))
  day <- sample.int(31L, n, replace = TRUE, prob = c(rep(1, 28), 0.92, 0.92, 0.58))
  dow <- sample.int(7L, n, replace = TRUE)
  carrier <- draw_factor(n, m$carriers, m$carrier_prob)
  origin <- draw_factor(n, m$airports, m$origin_prob)
  dest <- draw_factor(n, m$airports, m$dest_prob)
  eta <- m$intercept + m$carrier_eff[as.integer(carrier)] + m$origin_eff[as.integer(origin)] +
    m$dest_eff[as.integer(dest)] +
    ifelse(hour < 6, -0.8, 0) + 1.4 * stats::plogis((hour - 14) / 2.2) + 0.35 * exp(-((hour - 17)^2) / 2) +
    0.3 * cos(2 * pi * (month - 7) / 12) + ifelse(month == 12L, 0.35, 0) + m$dow_eff[dow] -
    0.08 * log(distance / 600) +
    if (noise) stats::rnorm(n, sd = 0.5) else 0
  list(df = data.frame(DepTime = dep_time, Distance = distance, Month = as.numeric(month),
                       DayofMonth = as.numeric(day), DayOfWeek = as.numeric(dow),
                       UniqueCarrier = carrier, Origin = origin, Dest = dest),
       eta = eta)
}

gbmperf_like <- function(n, seed = 1) {
  m <- gbmperf_model()
  set.seed(seed)
  r <- gbmperf_rows(as.integer(n), m)
  y <- stats::runif(length(r$eta)) < stats::plogis(r$eta)
  r$df$dep_delayed_15min <- factor(ifelse(y, "Y", "N"), levels = c("N", "Y"))
  r$df
}

# ---------------------------------------------------------------------------
# (b) The shape of the HIGGS table: 28 dense numeric columns.
#
# 21 "low-level" columns as a collider would record them: a lepton's pT
# (log-normal: heavy right tail), eta (normal) and phi (uniform on -pi..pi);
# the missing energy's magnitude (a gamma: heavy tail) and phi; four jets'
# pT (log-normal, shrinking from jet 1 to jet 4), eta, phi and b-tag (0, 1.1
# or 2.2, a discrete column with heavy ties). And 7 "high-level" columns
# derived from them: invariant-mass-like products and ratios
# (m_jj = sqrt(2 pT1 pT2 (cosh(deta) - cos(dphi))) of jets 1-2, m_jjj of jets
# 1-3, m_lv of the lepton and the missing energy, m_jlv, m_bb of jets 3-4,
# m_wbb and m_wwbb), so that some columns are nonlinear functions of others.
#
# The label (0/1, about 53% ones) is a Bernoulli draw from plogis(b + s), where
# s = 1.1 tanh(2 (log m_bb - 0.1)) + 0.9 [m_jj > 1.2 and m_lv < 1.4]
#     - 0.7 log(m_wwbb) + 0.5 lep_eta * jet1_eta + 0.35 sin(lep_phi - met_phi)
#     + 0.3 (jet1_btag + jet2_btag) / 2.2 - 0.4 |jet3_eta| + 0.25 log(lep_pt)
#     + N(0, 0.4) noise,
# and b sets the positive rate to 53% (found on 200,000 rows drawn with the
# model's seed). A stump cannot see the interactions; depth 6 trees can.
higgs_model <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    cache <<- with_seed(20240054, {
      m <- list(intercept = 0)
      cal <- higgs_rows(200000L, m)
      m$intercept <- intercept_for_rate(cal$eta, 0.53)
      m
    })
    cache
  }
})

higgs_rows <- function(n, m) {
  cols <- list()
  cols$lep_pt <- stats::rlnorm(n, 0, 0.55)
  cols$lep_eta <- stats::rnorm(n)
  cols$lep_phi <- stats::runif(n, -pi, pi)
  cols$met <- stats::rgamma(n, shape = 1.5, rate = 1.4)
  cols$met_phi <- stats::runif(n, -pi, pi)
  for (j in 1:4) {
    cols[[sprintf("jet%d_pt", j)]] <- stats::rlnorm(n, -0.15 * j, 0.5)
    cols[[sprintf("jet%d_eta", j)]] <- stats::rnorm(n, sd = 1.1)
    cols[[sprintf("jet%d_phi", j)]] <- stats::runif(n, -pi, pi)
    cols[[sprintf("jet%d_btag", j)]] <- sample(c(0, 1.1, 2.2), n, replace = TRUE, prob = c(0.6, 0.2, 0.2))
  }
  pair_mass <- function(pt1, eta1, phi1, pt2, eta2, phi2) {
    sqrt(pmax(2 * pt1 * pt2 * (cosh(eta1 - eta2) - cos(phi1 - phi2)), 1e-6))
  }
  j <- function(i, what) cols[[sprintf("jet%d_%s", i, what)]]
  jet_mass <- function(a, b) pair_mass(j(a, "pt"), j(a, "eta"), j(a, "phi"), j(b, "pt"), j(b, "eta"), j(b, "phi"))
  cols$m_jj <- jet_mass(1, 2)
  cols$m_jjj <- sqrt(cols$m_jj^2 + jet_mass(1, 3)^2 + jet_mass(2, 3)^2)
  cols$m_lv <- sqrt(pmax(2 * cols$lep_pt * cols$met * (1 - cos(cols$lep_phi - cols$met_phi)), 1e-6))
  cols$m_jlv <- sqrt(cols$m_lv^2 +
                       pair_mass(j(1, "pt"), j(1, "eta"), j(1, "phi"), cols$lep_pt, cols$lep_eta, cols$lep_phi)^2)
  cols$m_bb <- jet_mass(3, 4)
  cols$m_wbb <- sqrt(cols$m_bb^2 + cols$m_lv^2)
  cols$m_wwbb <- sqrt(cols$m_wbb^2 + cols$m_jj^2)
  s <- with(cols, 1.1 * tanh(2 * (log(m_bb) - 0.1)) + 0.9 * (m_jj > 1.2 & m_lv < 1.4) - 0.7 * log(m_wwbb) +
              0.5 * lep_eta * jet1_eta + 0.35 * sin(lep_phi - met_phi) + 0.3 * (jet1_btag + jet2_btag) / 2.2 -
              0.4 * abs(jet3_eta) + 0.25 * log(lep_pt)) + stats::rnorm(n, sd = 0.4)
  list(df = as.data.frame(cols), eta = m$intercept + s)
}

higgs_like <- function(n, seed = 1) {
  m <- higgs_model()
  set.seed(seed)
  r <- higgs_rows(as.integer(n), m)
  r$df$y <- as.numeric(stats::runif(length(r$eta)) < stats::plogis(r$eta))
  r$df
}

# ---------------------------------------------------------------------------
# (c) A wide table for memory and per-tree time: 22 columns, by default 15M
# rows. 5 factors f10, f50, f100, f500 and f1000 (10, 50, 100, 500 and 1000
# levels; the first two with even frequencies, the others Zipf with exponent
# 1) and 17 numeric columns x1..x17 (normal, uniform and log-normal in turn).
# The label y (0/1, about 30% ones) is a Bernoulli draw from plogis(eta), eta
# = the intercept + per-level N(0, 0.5) effects of the five factors + 0.8 x1
# - 0.6 x2 x3 + 0.5 sin(3 x4) + 0.4 [x5 > 0.7] + 0.3 log(x6): the numeric
# columns past x6 are noise.
#
# Built chunk by chunk (rows 1..chunk_rows from seed * 10000 + 1, the next
# chunk from seed * 10000 + 2, ...) into preallocated columns, so that the
# memory used is the final table (17 doubles, 5 integer codes and the label:
# 164 bytes a row, 2.5 GB at 15M rows) plus one chunk; write_wide_csv()
# writes the same rows to a CSV file the same way.
wide_model <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    cache <<- with_seed(20240055, {
      k <- c(f10 = 10L, f50 = 50L, f100 = 100L, f500 = 500L, f1000 = 1000L)
      m <- list(k = k,
                levels = lapply(k, function(kk) sprintf("L%04d", seq_len(kk))),
                prob = lapply(k, function(kk) if (kk <= 50L) NULL else zipf_prob(kk, 1)[sample(kk)]),
                eff = lapply(k, function(kk) stats::rnorm(kk, sd = 0.5)),
                intercept = 0)
      cal <- wide_chunk(200000L, m)
      m$intercept <- intercept_for_rate(cal$eta, 0.3)
      m
    })
    cache
  }
})

# One chunk of rows (a list of columns, factors as factors) and their logit.
wide_chunk <- function(n, m) {
  cols <- list()
  eta <- rep(m$intercept, n)
  for (f in names(m$k)) {
    codes <- sample.int(m$k[[f]], n, replace = TRUE, prob = m$prob[[f]])
    eta <- eta + m$eff[[f]][codes]
    cols[[f]] <- structure(codes, levels = m$levels[[f]], class = "factor")
  }
  for (j in 1:17) {
    cols[[paste0("x", j)]] <- switch((j - 1L) %% 3L + 1L, stats::rnorm(n), stats::runif(n), stats::rlnorm(n, 0, 0.6))
  }
  eta <- eta + 0.8 * cols$x1 - 0.6 * cols$x2 * cols$x3 + 0.5 * sin(3 * cols$x4) + 0.4 * (cols$x5 > 0.7) +
    0.3 * log(cols$x6)
  list(cols = cols, eta = eta)
}

wide_table <- function(n = 15e6, seed = 1, chunk_rows = 1e6) {
  m <- wide_model()
  n <- as.integer(n)
  chunk_rows <- as.integer(min(chunk_rows, n))
  # (columns allocated one by one into a list, so that each has one
  # reference and the assignments below write into it instead of copying it)
  out <- list()
  for (f in names(m$k)) out[[f]] <- integer(n)
  for (j in 1:17) out[[paste0("x", j)]] <- double(n)
  y <- integer(n)
  starts <- seq(1L, n, by = chunk_rows)
  for (i in seq_along(starts)) {
    set.seed(seed * 10000 + i)
    rows <- starts[i]:min(n, starts[i] + chunk_rows - 1L)
    ch <- wide_chunk(length(rows), m)
    for (nm in names(ch$cols)) out[[nm]][rows] <- unclass(ch$cols[[nm]])
    y[rows] <- as.integer(stats::runif(length(rows)) < stats::plogis(ch$eta))
    rm(ch)
    invisible(gc(verbose = FALSE))
  }
  for (f in names(m$k)) {
    attr(out[[f]], "levels") <- m$levels[[f]]
    class(out[[f]]) <- "factor"
  }
  out$y <- y
  rm(y)
  attr(out, "row.names") <- .set_row_names(n)
  class(out) <- "data.frame"
  out
}

# The rows wide_table(n, seed, chunk_rows) makes, written to a CSV file at
# `path` chunk by chunk (data.table::fwrite, header in the first chunk); the
# factors are written as their level names. Returns the path.
write_wide_csv <- function(path, n = 15e6, seed = 1, chunk_rows = 1e6) {
  m <- wide_model()
  n <- as.integer(n)
  chunk_rows <- as.integer(min(chunk_rows, n))
  starts <- seq(1L, n, by = chunk_rows)
  for (i in seq_along(starts)) {
    set.seed(seed * 10000 + i)
    len <- min(n, starts[i] + chunk_rows - 1L) - starts[i] + 1L
    ch <- wide_chunk(len, m)
    d <- ch$cols
    d$y <- as.integer(stats::runif(len) < stats::plogis(ch$eta))
    data.table::fwrite(data.table::as.data.table(d), path, append = i > 1L, col.names = i == 1L)
    rm(ch, d)
  }
  invisible(path)
}

# ---------------------------------------------------------------------------
# bench/trees.R's tasks, the same code as that file's (which builds them
# inline): the same draws from the same seed give the same tables.
#
# "uniform": n rows x 20 numeric features x1..x20 drawn uniformly on -1..1;
# the label (0/1) is a Bernoulli draw from plogis(2 f), f = sin(3 x1) + x2 x3
# + (1 if x4 > 0.3 else -0.5) + 0.5 x5^2 - x6. Draws from R's current stream
# (bench/trees.R sets set.seed(42) first): a list of the matrix x and the
# label y.
uniform_task <- function(n) {
  x <- matrix(stats::runif(n * 20, -1, 1), n, 20, dimnames = list(NULL, paste0("x", 1:20)))
  f <- sin(3 * x[, 1]) + x[, 2] * x[, 3] + ifelse(x[, 4] > 0.3, 1, -0.5) + 0.5 * x[, 5]^2 - x[, 6]
  y <- as.numeric(stats::runif(n) < stats::plogis(2 * f))
  list(x = x, y = y)
}

# "flights": nycflights13's flights with both delays known (327,346), 4
# numeric columns with heavy ties (departure delay, distance, hour, month),
# the label whether the flight arrived late (arr_delay > 0). A list of the
# matrix x and the label y; NULL without nycflights13.
flights_task <- function() {
  if (!requireNamespace("nycflights13", quietly = TRUE)) return(NULL)
  fl <- nycflights13::flights
  fl <- fl[!is.na(fl$dep_delay) & !is.na(fl$arr_delay), ]
  x <- as.matrix(data.frame(dep_delay = as.numeric(fl$dep_delay), distance = as.numeric(fl$distance),
                            hour = as.numeric(fl$hour), month = as.numeric(fl$month)))
  list(x = x, y = as.numeric(fl$arr_delay > 0))
}
