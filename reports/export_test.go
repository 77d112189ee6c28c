package reports

// GroupFusions is groupFusions, for the tests outside the package.
var GroupFusions = groupFusions
