# How the package reads each vector it is given, decided in one place: by
# the vector's class first, its storage type second. Training, evaluation,
# prediction, input_fn(), feature_columns_from_data(), the R data of
# streaming sources (dataset_map(), sql_dataset()) and the parsnip engines
# all read their columns through read_columns().
#
# - no class (double, integer, logical, character; a matrix of them) and
#   factors: read as they are;
# - Date, date-times (POSIXct) and difftime: passed on as they are; the
#   numeric columns refuse them, saying how to convert on purpose
#   (check_not_time());
# - bit64's integer64 (what data.table::fread() and DBI give for large
#   integers): read as the numbers it holds, as doubles. A value beyond 2^53
#   in magnitude has no exact double: that is an error naming the column and
#   the row rather than a model of rounded numbers (an identifier that large
#   is a category: as.character() of it; to accept the rounding, convert it
#   on purpose with as.numeric());
# - AsIs (I()): read as what it wraps;
# - lists: passed on as they are (the columns that read them say what they
#   take); vctrs' list_of() as the list it is, textrecipes' token lists as
#   their tokens (one character vector per row);
# - sparse matrices of the Matrix package: as a dgCMatrix (a double matrix
#   of compressed columns, what the engine reads in place), converted once
#   when they are another kind (triplets, rows, logical or pattern values);
# - any other class (haven's labelled values, units, vctrs' classes, a class
#   of the user's...): an error naming the column and its class, since
#   reading its storage type might not be what it means.

# `columns`: a list of vectors; `names`: their names for the messages;
# `what`: how the messages name a column (sprintf() format with the name).
# Returns the list with the columns that need it converted (the same list,
# not copied, when none does).
read_columns <- function(columns, names = names(columns), what = "column '%s'") {
  at <- cpp_classed_columns(columns)
  for (i in at) columns[i] <- list(read_column(columns[[i]], names[i], what))
  columns
}

# One vector, read by its class (see above).
read_column <- function(x, name, what = "column '%s'") {
  if (!is.object(x) || is.factor(x) || inherits(x, c("Date", "POSIXt", "difftime"))) return(x)
  if (is.list(x)) return(if (is.data.frame(x)) x else list_column(x))
  if (inherits(x, "sparseMatrix")) return(as_dgc(x))
  if (inherits(x, "integer64")) return(integer64_values(x, name, what))
  if (inherits(x, "AsIs")) {
    cls <- setdiff(oldClass(x), "AsIs")
    oldClass(x) <- if (length(cls)) cls
    return(read_column(x, name, what))
  }
  abort(sprintf(paste0("%s is of class '%s' (%s values underneath), which cppestimators does not know how to ",
                       "read: reading its storage might not be what it means. Convert it on purpose first%s: ",
                       "e.g. data$%s <- as.numeric(data$%s) (or as.character(), as.factor()), ",
                       "vctrs::vec_data(data$%s), or a recipe step that converts it."),
                sprintf(what, name), paste(class(x), collapse = "/"), typeof(x), class_hint(x), name, name, name),
        class = "cppestimators_feature_type")
}

# A classed list column as the plain list of vectors it holds.
list_column <- function(x) {
  if (inherits(x, "textrecipes_tokenlist")) x <- vctrs::field(x, "tokens")
  if (is.object(x)) x <- unclass(x)
  attr(x, "ptype") <- NULL
  x
}

# A sparse matrix of the Matrix package as a dgCMatrix (unchanged when it is one).
as_dgc <- function(x) {
  if (inherits(x, "dgCMatrix")) return(x)
  x <- methods::as(x, "CsparseMatrix")
  x <- methods::as(x, "generalMatrix")
  methods::as(x, "dMatrix")
}

# For the classes users meet most: the usual way to convert them.
class_hint <- function(x) {
  if (inherits(x, "haven_labelled")) {
    " (haven::zap_labels() keeps the values, haven::as_factor() makes the labels a factor)"
  } else if (inherits(x, "units")) {
    " (units::drop_units() keeps the values in their unit)"
  } else {
    ""
  }
}

integer64_values <- function(x, name, what) {
  out <- cpp_integer64_as_double(x)
  if (!is.null(out$values)) return(out$values)
  abort(sprintf(paste0("%s is an integer64 whose value %s (row %d) is beyond 2^53, the largest integer a double ",
                       "holds exactly: the model would read a rounded number. If it is an identifier, use it as ",
                       "a category (as.character()); to accept the rounding, convert it on purpose with ",
                       "as.numeric()."),
                sprintf(what, name), out$value, as.integer(out$row)),
        class = c("cppestimators_precision_error", "cppestimators_feature_type"))
}
