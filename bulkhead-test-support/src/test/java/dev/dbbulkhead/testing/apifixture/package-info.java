/**
 * Classes whose only purpose is to be listed by {@code PublicApiTests}: one of each kind of type and member the
 * listing has to render or leave out. Their bodies do nothing.
 */
package dev.dbbulkhead.testing.apifixture;
